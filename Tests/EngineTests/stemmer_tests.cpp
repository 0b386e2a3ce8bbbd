// stemmer_tests.cpp — the remembering stemmer stems as Snowball does, and forgets past its capacity.

#include "stemmer.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

TEST_CASE("a remembering stemmer gives Snowball's stems, the first time and every time after") {
    const Xapian::Stem snowball("english");
    const Xapian::Stem remembering = cxapian::make_stemmer("english");
    const std::vector<std::string> words = {"running", "runs", "connection", "connections", "generously",
                                            "", "é", "größe", "64-bit", "running", "runs", "Running"};
    for (int pass = 0; pass < 2; ++pass) {
        for (const auto &word : words) CHECK(remembering(word) == snowball(word));
    }
    CHECK(remembering.get_description() == snowball.get_description());
    CHECK(cxapian::make_stemmer("none")("running") == "running");
    CHECK(cxapian::make_stemmer("")("running") == "running");
}

TEST_CASE("a remembering stemmer holds at most its capacity, and stems right after it starts again") {
    cxapian::CachingStemmer stemmer("english", 4);
    const Xapian::Stem snowball("english");
    for (const std::string word : {"walking", "talking", "jumping", "singing", "dancing", "walking"}) {
        CHECK(stemmer(word) == snowball(word));
        CHECK(stemmer.remembered() <= 4);
    }
    CHECK(stemmer.remembered() == 2);  // emptied at the fifth word, which and the sixth it then remembered
}

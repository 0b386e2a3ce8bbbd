// stemmer_tests.cpp — the remembering stemmer stems as Snowball does, and forgets past its capacity.

#include "snippets.h"
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

TEST_CASE("an English stem begins with its word's first byte, which is what a snippet's stemmer relies on") {
    // Snowball's exceptional forms, words it rewrites most (y to i, e added back, double consonants), initial y,
    // non-ASCII and digits: the stem changes at the end of the word only.
    const std::vector<std::string> words = {
        "skies", "skis", "dying", "lying", "tying", "idly", "gently", "ugly", "early", "only", "singly", "news",
        "howe", "atlas", "cosmos", "bias", "andes", "yelling", "yearly", "youths", "hoping", "hopping", "generously",
        "communism", "arsenals", "relational", "conditional", "digitizer", "ies", "ied", "ys", "y", "a", "élégantly",
        "größten", "64bit", "x86_64", "nowadays", "happily", "agreed"};
    const Xapian::Stem snowball("english");
    for (const auto &word : words) {
        const std::string stem = snowball(word);
        REQUIRE(!stem.empty());
        CHECK(stem[0] == word[0]);
    }
}

TEST_CASE("a snippet's stemmer stems a word as Snowball does, or passes over one no query stem begins as") {
    const Xapian::Stem snowball("english");
    auto *implementation = new cxapian::SnippetStemmer();
    const Xapian::Stem stemmer(implementation);
    const Xapian::Query title_and_detail(Xapian::Query::OP_AND, Xapian::Query("connect"), Xapian::Query("Sconnect"));
    const Xapian::Query query(Xapian::Query::OP_OR, Xapian::Query("Zrun"), title_and_detail);
    const std::bitset<256> initials = cxapian::snippet_terms(query).stem_initials;
    CHECK(initials.count() == 1);
    CHECK(initials['r']);
    // The words a snippet can highlight begin as the stem or as the unprefixed term; the title's term is none.
    const std::bitset<256> words = cxapian::snippet_terms(query).initials;
    CHECK(words.count() == 2);
    CHECK((words['r'] && words['c']));
    implementation->set_initials(initials);
    CHECK(stemmer("running") == snowball("running"));
    CHECK(stemmer("runs") == "run");
    CHECK(stemmer("connections").empty());  // only "connect" unstemmed, which the snippet matches as written
    // Before any query, and for a query holding the bare "Z" (which the empty stem would match), every word is
    // stemmed.
    CHECK(cxapian::SnippetStemmer()("connections") == snowball("connections"));
    CHECK(cxapian::snippet_terms(Xapian::Query("Z")).stem_initials.all());
    CHECK(!cxapian::snippet_terms(Xapian::Query("Z")).known);
    CHECK(cxapian::snippet_terms(Xapian::Query()).stem_initials.none());
    CHECK(!cxapian::snippet_terms(Xapian::Query(Xapian::Query::OP_WILDCARD, "conn")).known);
}

// index_terms_tests.cpp — the terms the index writer adds or leaves out (word pairs, stems) and the spelling table's
// words: each must leave what a query matches, and how it weighs, as it was.

#include "fixture.h"
#include "spellings.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>

using namespace engine_tests;

namespace {

/// Each document `query` matches in `database`, with its BM25 weight.
std::map<Xapian::docid, double> weighed(const Xapian::Database &database, const Xapian::Query &query) {
    Xapian::Enquire enquire(database);
    enquire.set_query(query);
    const Xapian::MSet found = enquire.get_mset(0, database.get_doccount() + 1);
    std::map<Xapian::docid, double> list;
    for (auto hit = found.begin(); hit != found.end(); ++hit) list[*hit] = hit.get_weight();
    return list;
}

void check_same(const std::map<Xapian::docid, double> &got, const std::map<Xapian::docid, double> &expected) {
    REQUIRE(got.size() == expected.size());
    for (const auto &hit : expected) {
        CAPTURE(hit.first);
        REQUIRE(got.count(hit.first) == 1);
        CHECK(got.at(hit.first) == doctest::Approx(hit.second).epsilon(1e-9));
    }
}

}  // namespace

TEST_CASE("a phrase filtered by word-pair terms matches and weighs as Xapian's position check") {
    auto pairs = std::make_shared<const cxapian::WordPairs>("the\nmemory\nleak\nserver\n", title_prefix);
    TempIndex index(pairs);
    for (const Item &item : corpus(400)) index.add(item);
    index.commit();
    const Xapian::Database database(index.path());
    for (const std::string text : {"\"memory leak\"", "\"the server\"", "\"the memory leak\"", "\"leak memory\"",
                                   "crash \"memory leak\"", "\"memory leak\" OR \"server crash\"",
                                   // Windows wider than the phrase: checked by positions, never looked up by a pair.
                                   "the ADJ/3 memory", "memory NEAR/3 the", "the ADJ memory"}) {
        CAPTURE(text);
        const Xapian::Query query = parse(text);
        const Xapian::Query filtered = pairs->filter_phrases(query);
        const auto expected = weighed(database, query);
        CHECK(!expected.empty());
        check_same(weighed(database, filtered), expected);
    }
    // A two-word phrase of common words is looked up by its pair: no phrase is left to check.
    CHECK(pairs->filter_phrases(parse("\"memory leak\"")).get_description().find("PHRASE") == std::string::npos);
}

TEST_CASE("stem terms left out are found again: a search matches and ranks as with every stem written") {
    auto stems = std::make_shared<const cxapian::StemTerms>("english", title_prefix);
    TempIndex full;
    TempIndex pruned(nullptr, stems);
    std::vector<Item> items = corpus(200);
    const std::vector<Item> forms = {{"running tests", "the runner runs"}, {"run", "a test that runs"},
                                     {"tests", "tested and run"},         {"runs", "runs runs"},
                                     {"Testing", "run run run"}};
    items.insert(items.end(), forms.begin(), forms.end());
    for (const Item &item : items) {
        full.add(item);
        pruned.add(item);
    }
    pruned.writable().set_metadata("stems", "english");
    full.commit();
    pruned.commit();
    CHECK(Xapian::Database(pruned.path()).get_termfreq("Zrun") < Xapian::Database(full.path()).get_termfreq("Zrun"));
    auto full_reader = full.reader();
    auto pruned_reader = pruned.reader();
    cxapian::MatchOptions options = ranked_options();
    options.max_items = 1000;
    cxapian::MatchOptions pruned_options = options;
    pruned_options.layout.stems_key = "stems";
    pruned_options.layout.title_prefix = title_prefix;
    for (const std::string text : {"run", "test", "runs OR testing", "run -test", "leak OR running"}) {
        CAPTURE(text);
        const Xapian::Query query = parse(text);
        CHECK(matching(pruned_reader->database, stems->expand(query)) == matching(full_reader->database, query));
        const auto expected = hits(*run(*full_reader, query, options));
        const auto got = hits(*run(*pruned_reader, query, pruned_options));
        CHECK(!expected.empty());
        REQUIRE(got.size() == expected.size());
        for (size_t i = 0; i < got.size(); ++i) {
            CAPTURE(i);
            CHECK(got[i].first == expected[i].first);
            CHECK(got[i].second == doctest::Approx(expected[i].second).epsilon(1e-9));
        }
    }
}

TEST_CASE("the spelling table takes words, not versions, hashes or identifiers") {
    for (const std::string word : {"leak", "zookeeper", "don't", "naïve"}) CHECK(cxapian::is_spelling_word(word, 0));
    for (const std::string word : {"gtk3", "0x1f", "xfs_bmap", "a", "Sleak", "v1.2", ""}) {
        CAPTURE(word);
        CHECK_FALSE(cxapian::is_spelling_word(word, 0));
    }
    CHECK(cxapian::is_spelling_word("Sleak", 1));
}

TEST_CASE("spellings: every title word, and the text's words from their minimum frequency, each once") {
    TempIndex index;
    index.add({"zookeeper", "rare"});
    index.add({"crash", "common common"});
    index.add({"crash", "common gtk3"});
    index.commit();
    cxapian::add_spellings(index.writable(), {"zookeeper", "rare", "common", "gtk3", "crash"}, title_prefix, 2);
    index.commit();
    Xapian::Database database(index.path());
    std::map<std::string, Xapian::doccount> table;
    for (auto word = database.spellings_begin(); word != database.spellings_end(); ++word) {
        table[*word] = word.get_termfreq();
    }
    // zookeeper and crash: in a title; common: in two documents' text; rare once, gtk3 no word.
    CHECK(table == std::map<std::string, Xapian::doccount>{{"common", 2}, {"crash", 2}, {"zookeeper", 1}});
    // A word already there is not counted again.
    cxapian::add_spellings(index.writable(), {"crash"}, title_prefix, 2);
    index.commit();
    database.reopen();
    CHECK(database.get_spelling_suggestion("crasj") == "crash");
    for (auto word = database.spellings_begin(); word != database.spellings_end(); ++word) {
        if (*word == "crash") CHECK(word.get_termfreq() == 2);
    }
}

TEST_CASE("a phrase looked up by its pair ranks and weighs in the fielded ranking as one checked by positions") {
    const std::string common = "the\nmemory\nleak\nserver\n";
    TempIndex plain;
    TempIndex paired(std::make_shared<const cxapian::WordPairs>(common, title_prefix));
    for (const Item &item : corpus(500)) {
        plain.add(item);
        paired.add(item);
    }
    paired.writable().set_metadata("pairs", common);
    plain.commit();
    paired.commit();
    auto plain_reader = plain.reader();
    auto paired_reader = paired.reader();
    // In the detail and in the title (the default field's phrase is both), alone or beside other words.
    for (const std::string text : {"\"memory leak\"", "\"the server\"", "crash \"memory leak\"",
                                   "\"memory leak\" OR \"server crash\"", "\"leak memory\" -crash"}) {
        for (const Xapian::doccount window : {Xapian::doccount(0), Xapian::doccount(50)}) {
            CAPTURE(text);
            CAPTURE(window);
            cxapian::MatchOptions options = ranked_options();
            options.layout.title_prefix = title_prefix;
            options.layout.word_pairs_key = "pairs";
            options.rescore_window = window;
            options.max_items = 100;
            options.check_at_least = 1000;  // exact counts: the two walks estimate apart past it
            const auto expected = run(*plain_reader, parse(text), options);
            const auto got = run(*paired_reader, parse(text), options);
            CHECK(got->estimated == expected->estimated);
            const auto expected_hits = hits(*expected);
            const auto got_hits = hits(*got);
            CHECK_FALSE(expected_hits.empty());
            REQUIRE(got_hits.size() == expected_hits.size());
            for (size_t i = 0; i < got_hits.size(); ++i) {
                CHECK(got_hits[i].first == expected_hits[i].first);
                CHECK(got_hits[i].second == doctest::Approx(expected_hits[i].second).epsilon(1e-12));
            }
        }
    }
    // Two title words filtered by anything but their pair are matched as they are.
    using Q = Xapian::Query;
    const Q filtered(Q::OP_FILTER, Q(Q::OP_AND, Q(title_prefix + "memory"), Q(title_prefix + "leak")),
                     Q(status_prefix + "open"));
    cxapian::MatchOptions options = ranked_options();
    options.layout.title_prefix = title_prefix;
    options.layout.word_pairs_key = "pairs";
    options.max_items = 1000;
    const auto expected = matching(paired_reader->database, filtered);
    CHECK_FALSE(expected.empty());
    auto got = docids(*run(*paired_reader, filtered, options));
    std::sort(got.begin(), got.end());
    CHECK(got == expected);
}

// match_tests.cpp — match() and its strategies: what a search's page is, whichever way it is matched.

#include "fixture.h"
#include "match_strategies.h"
#include "fielded_weight.h"
#include "query_rewrite.h"
#include "sources/docid_list.h"
#include "sources/title_match.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>

using namespace engine_tests;

namespace {

/// An index of the test corpus, committed, with a reader.
struct Searched {
    TempIndex index;
    std::unique_ptr<cxapian::Reader> reader;

    explicit Searched(unsigned count) {
        for (const Item &item : corpus(count)) index.add(item);
        index.commit();
        reader = index.reader();
    }
};

std::vector<Xapian::docid> sorted(std::vector<Xapian::docid> list) {
    std::sort(list.begin(), list.end());
    return list;
}

}  // namespace

TEST_CASE("the fielded ranking matches exactly the documents the parsed query matches") {
    Searched searched(400);
    for (const std::string text : {"leak", "memory leak", "leak OR zookeeper", "\"memory leak\"", "crash -server",
                                   "server status:open", "replica NOT lease"}) {
        CAPTURE(text);
        cxapian::MatchOptions plain;
        plain.max_items = 1000;
        plain.unweighted = true;
        cxapian::MatchOptions ranked = ranked_options();
        ranked.max_items = 1000;
        const auto expected = run(*searched.reader, parse(text), plain);
        const auto got = run(*searched.reader, parse(text), ranked);
        CHECK(expected->page_size > 0);
        CHECK(sorted(docids(*got)) == sorted(docids(*expected)));
        CHECK(got->estimated == expected->estimated);
    }
}

TEST_CASE("a query of one word weighs the title similarity in its word, as the similarity's own source beside it") {
    Searched searched(400);
    for (const std::string text : {"leak", "crash -server", "replica"}) {
        CAPTURE(text);
        cxapian::MatchOptions options = ranked_options();
        options.max_items = 1000;
        options.check_at_least = 1000;
        std::map<Xapian::docid, double> got;
        for (const auto &hit : hits(*run(*searched.reader, parse(text), options))) got[hit.first] = hit.second;
        REQUIRE_FALSE(got.empty());
        // The same query rewritten without the similarity, and its source beside it, as for several words.
        cxapian::RankingParameters without = *options.ranking;
        without.title_match = 0;
        const Xapian::Database &database = searched.reader->database;
        const cxapian::FieldedQuery plain =
            cxapian::rewrite_for_fields(parse(text), Xapian::Query(), database, cxapian::FieldedRanking(without));
        REQUIRE(plain.title_terms.size() == 1);
        // The word weighs it: no second walk of its title lists beside it.
        CHECK(cxapian::rewrite_for_fields(parse(text), Xapian::Query(), database,
                                          cxapian::FieldedRanking(*options.ranking))
                  .title_match.empty());
        auto *similarity = new cxapian::TitleMatchSource(plain.title_terms, plain.title_idfs, title_words_slot,
                                                         options.ranking->title_match);
        Xapian::Enquire enquire(database);
        enquire.set_query(
            Xapian::Query(Xapian::Query::OP_AND_MAYBE, plain.base, Xapian::Query(similarity->release())));
        enquire.set_weighting_scheme(cxapian::FieldedBM25Weight(options.ranking->k1, options.ranking->b));
        const Xapian::MSet expected = enquire.get_mset(0, 1000);
        REQUIRE(expected.size() == got.size());
        for (auto hit = expected.begin(); hit != expected.end(); ++hit) {
            CAPTURE(*hit);
            REQUIRE(got.count(*hit) == 1);
            CHECK(got[*hit] == doctest::Approx(hit.get_weight()).epsilon(1e-12));
        }
    }
}

TEST_CASE("a ranked page is in order of weight, then docid") {
    Searched searched(400);
    const auto result = run(*searched.reader, parse("memory OR leak OR crash"), ranked_options());
    const auto page = hits(*result);
    REQUIRE(page.size() == 20);
    for (size_t i = 1; i < page.size(); ++i) {
        const bool ordered = page[i - 1].second > page[i].second
                             || (page[i - 1].second == page[i].second && page[i - 1].first < page[i].first);
        CHECK(ordered);
    }
}

TEST_CASE("a rescored window weighs each hit as the whole query does, and its pages join up") {
    Searched searched(600);
    const Xapian::Query query = parse("memory leak");
    cxapian::MatchOptions whole = ranked_options();
    whole.bonus = parse("\"memory leak\"");
    whole.max_items = 1000;
    cxapian::MatchOptions windowed = whole;
    windowed.rescore_window = 50;
    windowed.max_items = 20;

    std::map<Xapian::docid, double> weight_of;
    for (const auto &hit : hits(*run(*searched.reader, query, whole))) weight_of[hit.first] = hit.second;
    const auto page = hits(*run(*searched.reader, query, windowed));
    REQUIRE(page.size() == 20);
    for (const auto &hit : page) {
        CAPTURE(hit.first);
        REQUIRE(weight_of.count(hit.first) == 1);
        CHECK(hit.second == doctest::Approx(weight_of[hit.first]).epsilon(1e-9));
    }

    cxapian::MatchOptions first_half = windowed, second_half = windowed;
    first_half.max_items = second_half.max_items = 10;
    second_half.first = 10;
    auto joined = docids(*run(*searched.reader, query, first_half));
    const auto rest = docids(*run(*searched.reader, query, second_half));
    joined.insert(joined.end(), rest.begin(), rest.end());
    CHECK(joined == docids(*run(*searched.reader, query, windowed)));
}

TEST_CASE("a sort by value pages alike from the slot's table and from a sort in the match") {
    Searched searched(500);
    const Xapian::Query query = parse("leak OR crash OR the");
    for (const bool descending : {true, false}) {
        for (const bool docids_descending : {false, true}) {
            CAPTURE(descending);
            CAPTURE(docids_descending);
            cxapian::MatchOptions options = ranked_options();
            options.sort_keys = {{modified_slot, descending}};
            options.docids_descending = docids_descending;
            for (const Xapian::doccount first : {0u, 20u, 200u}) {
                CAPTURE(first);
                options.first = first;
                options.kept_tables = false;
                const auto expected = docids(*run(*searched.reader, query, options));
                options.kept_tables = true;
                // The table is asked for by its revision's second search and made off it, and its order is made on
                // the table's second use.
                for (int round = 0; round < 4; ++round) {
                    if (round == 2) cxapian::TableMaker::wait();
                    CHECK(docids(*run(*searched.reader, query, options)) == expected);
                }
                REQUIRE(expected.size() == 20);
                const Xapian::Database &database = searched.reader->database;
                for (size_t i = 1; i < expected.size(); ++i) {
                    const std::string before = database.get_document(expected[i - 1]).get_value(modified_slot);
                    const std::string after = database.get_document(expected[i]).get_value(modified_slot);
                    if (before == after) {
                        CHECK((docids_descending ? expected[i - 1] > expected[i] : expected[i - 1] < expected[i]));
                    } else {
                        CHECK((descending ? before > after : before < after));
                    }
                }
            }
        }
    }
    CHECK(searched.reader->slot_values.tables_made() > 0);
}

TEST_CASE("no search waits for a table: it is made on the maker's thread, and read once made") {
    Searched searched(300);
    const Xapian::Query query = parse("leak OR crash");
    cxapian::MatchOptions options = ranked_options();
    const auto expected = hits(*run(*searched.reader, query, options));  // kept_tables off
    options.kept_tables = true;
    // The maker's thread held up by a job of the test's own while the searches run: were a search to wait for the
    // table it asked for, it would wait for this job too, and never end.
    std::mutex mutex;
    std::condition_variable released;
    bool release = false;
    cxapian::TableMaker::schedule("test: the maker held up", [&] {
        std::unique_lock<std::mutex> lock(mutex);
        released.wait(lock, [&] { return release; });
    });
    for (int round = 0; round < 3; ++round) CHECK(hits(*run(*searched.reader, query, options)) == expected);
    CHECK(searched.reader->doc_lengths.tables_made() == 0);  // asked for, behind the test's job
    {
        std::lock_guard<std::mutex> lock(mutex);
        release = true;
    }
    released.notify_all();
    cxapian::TableMaker::wait();
    CHECK(searched.reader->doc_lengths.tables_made() == 1);
    CHECK(searched.reader->title_words.tables_made() == 1);
    for (int round = 0; round < 2; ++round) CHECK(hits(*run(*searched.reader, query, options)) == expected);
    CHECK(searched.reader->doc_lengths.tables_made() == 1);  // made once per revision
}

TEST_CASE("a weighed query's page by relevance then one key for all is its page by relevance, in either docid order") {
    // What match_page() sets aside sooner must not change the page: same documents, weights and order. A query of
    // filters, exclusions and ranges alone weighs nothing, and keeps the order Xapian stops early in.
    CHECK(cxapian::weighs(parse("leak")));
    CHECK(cxapian::weighs(parse("memory leak status:open")));
    CHECK(cxapian::weighs(parse("\"memory leak\" OR crash")));
    CHECK(cxapian::weighs(parse("leak -crash")));
    CHECK_FALSE(cxapian::weighs(parse("status:open")));
    CHECK_FALSE(cxapian::weighs(parse("NOT crash")));
    CHECK_FALSE(cxapian::weighs(Xapian::Query::MatchAll));
    CHECK_FALSE(cxapian::weighs(Xapian::Query(Xapian::Query::OP_VALUE_RANGE, 0, "a", "b")));
    CHECK_FALSE(cxapian::weighs(Xapian::Query(Xapian::Query::OP_FILTER, Xapian::Query::MatchAll, Xapian::Query("x"))));
    Searched searched(300);
    const Xapian::Database &database = searched.reader->database;
    for (const std::string text : {"memory leak", "leak status:open", "\"memory leak\"", "the", "leak OR crash -the"}) {
        const Xapian::Query query = parse(text);
        REQUIRE(cxapian::weighs(query));
        for (const bool descending : {false, true}) {
            for (const Xapian::doccount max_items : {Xapian::doccount(3), Xapian::doccount(20)}) {
                INFO(text, descending ? ", docids descending" : "", ", ", max_items, " a page");
                cxapian::MatchOptions options = ranked_options();
                options.max_items = max_items;
                options.docids_descending = descending;
                options.check_at_least = 1000;
                // With a facet: every match counted, whether it entered the page's heap or was set aside.
                const auto spied = [&](cxapian::MatchResult &result) {
                    result.facets.push_back(
                        {status_slot, 0, std::make_unique<Xapian::ValueCountMatchSpy>(status_slot)});
                };
                const auto counts = [](const cxapian::MatchResult &result) {
                    std::map<std::string, Xapian::doccount> counted;
                    const auto &spy = *result.facets[0].spy;
                    for (auto value = spy.values_begin(); value != spy.values_end(); ++value) {
                        counted[*value] = value.get_termfreq();
                    }
                    return counted;
                };
                cxapian::MatchResult by_relevance;
                spied(by_relevance);
                cxapian::match_page(database, query, Xapian::BM25Weight(), options, by_relevance);
                cxapian::MatchResult set_aside;
                spied(set_aside);
                cxapian::match_page(database, query, Xapian::BM25Weight(), options, set_aside, nullptr, false, true);
                CHECK(hits(set_aside) == hits(by_relevance));
                CHECK(counts(set_aside) == counts(by_relevance));
                CHECK(!counts(by_relevance).empty());
                CHECK(set_aside.estimated == by_relevance.estimated);
                CHECK(set_aside.lower_bound == by_relevance.lower_bound);
                CHECK(set_aside.upper_bound == by_relevance.upper_bound);
                CHECK(hits(by_relevance).size() == std::min<size_t>(max_items, matching(database, query).size()));
            }
        }
    }
}

TEST_CASE("a page counted apart from its match is the page one weighted match gives, with the same counts") {
    Searched searched(300);
    // Words alone or ORed are counted by a second walk; the page's match is pruned as soon as the page is full.
    CHECK(cxapian::walks_in_one_pass(parse("leak OR crash")));
    CHECK(cxapian::walks_in_one_pass(parse("zookeeper")));
    CHECK_FALSE(cxapian::walks_in_one_pass(parse("memory leak")));
    CHECK_FALSE(cxapian::walks_in_one_pass(parse("\"memory leak\" OR crash")));
    CHECK_FALSE(cxapian::walks_in_one_pass(parse("leak status:open")));
    for (const std::string text : {"leak OR crash", "the OR leak OR memory OR crash", "zookeeper", "quota OR lease"}) {
        const Xapian::Query query = parse(text);
        const auto all = matching(searched.reader->database, query).size();
        for (const Xapian::doccount check_at_least : {Xapian::doccount(1000), Xapian::doccount(60)}) {
            for (const Xapian::doccount first : {Xapian::doccount(0), Xapian::doccount(20)}) {
                INFO(text, ", check_at_least ", check_at_least, ", first ", first);
                cxapian::MatchOptions options = ranked_options();
                options.check_at_least = check_at_least;
                options.first = first;
                const auto apart = run(*searched.reader, query, options);
                // Facets are counted in the weighted match: one walk, weighing every match until check_at_least.
                cxapian::MatchOptions spied = options;
                spied.facet_slots = {status_slot};
                const auto whole = run(*searched.reader, query, spied);
                CHECK(hits(*apart) == hits(*whole));
                CHECK(apart->lower_bound <= all);
                CHECK(apart->upper_bound >= all);
                if (all <= check_at_least) {
                    CHECK(apart->estimated == all);
                    CHECK(apart->lower_bound == all);
                    CHECK(apart->upper_bound == all);
                    CHECK(whole->estimated == all);
                } else {
                    CHECK(apart->lower_bound >= check_at_least);
                }
            }
        }
    }
}

TEST_CASE("facets count the values of every match examined, not only the page's") {
    Searched searched(300);
    const Xapian::Query query = parse("leak OR crash");
    cxapian::MatchOptions options = ranked_options();
    options.facet_slots = {status_slot};
    options.check_at_least = 1000;  // every match examined
    const auto result = run(*searched.reader, query, options);
    std::map<std::string, Xapian::doccount> counted;
    for (auto value = result->facets.at(0).spy->values_begin(); value != result->facets.at(0).spy->values_end();
         ++value) {
        counted[*value] = value.get_termfreq();
    }
    std::map<std::string, Xapian::doccount> expected;
    for (const Xapian::docid did : matching(searched.reader->database, query)) {
        ++expected[searched.reader->database.get_document(did).get_value(status_slot)];
    }
    CHECK(expected.size() == 3);
    CHECK(counted == expected);
}

TEST_CASE("a match past its deadline stops, and its counts say they are a lower bound") {
    Searched searched(1000);
    cxapian::MatchOptions options = ranked_options();
    options.time_limit = 1e-9;  // passed before the deadline's first look at the clock
    const auto result = run(*searched.reader, parse("the OR leak OR memory OR crash"), options);
    CHECK(result->stopped->load());
    CHECK(result->upper_bound >= searched.reader->database.get_doccount());
    CHECK(result->lower_bound < matching(searched.reader->database, parse("the OR leak OR memory OR crash")).size());

    options.time_limit = 0;
    const auto unlimited = run(*searched.reader, parse("the OR leak OR memory OR crash"), options);
    CHECK_FALSE(unlimited->stopped->load());
}

TEST_CASE("a walk of words stops at the deadline by its own sources, and what only weighs its finds runs to the end") {
    Searched searched(1000);
    // Words, ORed or ANDed, filtered or not: their sources ask the clock, and no filter is added. A phrase of plain
    // terms, and anything left as Xapian's terms, keeps the DeadlineSource.
    for (const std::string text : {"the OR leak OR memory OR crash", "the leak", "the status:open", "the -leak",
                                   "\"the leak\" OR \"memory crash\""}) {
        INFO(text);
        cxapian::MatchOptions options = ranked_options();
        options.time_limit = 1e-9;
        const auto result = run(*searched.reader, parse(text), options);
        CHECK(result->stopped->load());
        CHECK(result->clocked_sources.empty() == (text[0] == '"'));
        CHECK(result->lower_bound <= 64);
        CHECK(result->upper_bound >= searched.reader->database.get_doccount());
    }
    // Past the deadline, a rescored window and a sorted page weigh what the walk found as the whole query does.
    const Xapian::Query query = parse("the OR leak");
    cxapian::MatchOptions unlimited = ranked_options();
    unlimited.bonus = parse("memory OR crash");
    unlimited.max_items = 1000;
    std::map<Xapian::docid, double> weight_of;
    for (const auto &hit : hits(*run(*searched.reader, query, unlimited))) weight_of[hit.first] = hit.second;
    cxapian::MatchOptions rescored = unlimited;
    rescored.rescore_window = 50;
    rescored.max_items = 20;
    cxapian::MatchOptions sorted_page = ranked_options();
    sorted_page.sort_keys = {{modified_slot, true}};
    for (cxapian::MatchOptions options : {rescored, sorted_page}) {
        options.time_limit = 1e-9;
        const auto result = run(*searched.reader, query, options);
        CHECK(result->stopped->load());
        const auto page = hits(*result);
        CHECK_FALSE(page.empty());
        for (const auto &hit : page) {
            CAPTURE(hit.first);
            CHECK(hit.second > 0);  // weighed, though the walk had stopped
            if (options.bonus.empty()) continue;
            REQUIRE(weight_of.count(hit.first) == 1);
            CHECK(hit.second == doctest::Approx(weight_of[hit.first]).epsilon(1e-9));
        }
    }
}

TEST_CASE("a walk ends with its sources where each of an OR's parts, one of an AND's, a filter's first ends") {
    using Q = Xapian::Query;
    std::vector<Q> source;
    for (int i = 0; i < 3; ++i) source.push_back(Q((new cxapian::DocidListSource({1, 2, 3}))->release()));
    std::vector<const void *> clocked = {source[0].internal.get(), source[1].internal.get()};
    std::sort(clocked.begin(), clocked.end());
    const Q term("leak");
    CHECK(cxapian::ends_with(source[0], clocked));
    CHECK_FALSE(cxapian::ends_with(source[2], clocked));
    CHECK_FALSE(cxapian::ends_with(term, clocked));
    CHECK(cxapian::ends_with(Q(Q::OP_OR, source[0], source[1]), clocked));
    CHECK_FALSE(cxapian::ends_with(Q(Q::OP_OR, source[0], term), clocked));
    CHECK(cxapian::ends_with(Q(Q::OP_AND, term, source[1]), clocked));
    CHECK(cxapian::ends_with(Q(Q::OP_FILTER, source[0], term), clocked));
    CHECK_FALSE(cxapian::ends_with(Q(Q::OP_FILTER, term, source[0]), clocked));
    CHECK(cxapian::ends_with(Q(Q::OP_AND_NOT, source[1], source[2]), clocked));
    CHECK_FALSE(cxapian::ends_with(Q(Q::OP_AND_MAYBE, source[2], source[0]), clocked));
    CHECK(cxapian::ends_with(Q(Q::OP_AND_MAYBE, Q(Q::OP_SCALE_WEIGHT, source[1], 2.0), term), clocked));
    CHECK_FALSE(cxapian::ends_with(Q(Q::OP_VALUE_GE, 1, "a"), clocked));
}

TEST_CASE("a value range read from the slot's table matches what Xapian's range matches") {
    Searched searched(300);
    const std::vector<std::pair<std::optional<double>, std::optional<double>>> ranges = {
        {10.0, 20.0}, {std::nullopt, 5.0}, {35.0, std::nullopt}, {50.0, 60.0}};
    for (const auto &[low, high] : ranges) {
        auto bound = [](std::optional<double> value) {
            return value ? std::optional<std::string>(Xapian::sortable_serialise(*value)) : std::nullopt;
        };
        const cxapian::ValueRangeLeaf range = cxapian::ValueRangeLeaf::make(modified_slot, bound(low), bound(high));
        const Xapian::Query query(Xapian::Query::OP_AND, parse("leak OR the OR crash"), range.leaf);
        cxapian::MatchOptions options;
        options.max_items = 1000;
        options.unweighted = true;
        auto plain = std::make_unique<cxapian::MatchResult>();
        cxapian::match(*searched.reader, query, {range}, options, *plain);
        options.kept_tables = true;
        for (int round = 0; round < 2; ++round) {
            auto kept = std::make_unique<cxapian::MatchResult>();
            cxapian::match(*searched.reader, query, {range}, options, *kept);
            CHECK(sorted(docids(*kept)) == sorted(docids(*plain)));
        }
    }
}

TEST_CASE("a long-lived reader's searches share what they look up at a revision, and look again at the next") {
    TempIndex index(nullptr, nullptr, true);
    for (const Item &item : corpus(300)) index.add(item);
    index.commit();
    auto reader = index.reader();
    cxapian::MatchOptions options = ranked_options();
    options.layout.title_prefix = title_prefix;
    options.layout.positions_key = packed_positions.key;
    const std::vector<std::string> texts = {"leak", "memory leak", "\"zebrafish leak\"", "zebrafish", "leak OR crash"};
    // The kept reader's searches (the first of each revision reads the index, the next ones what the first read)
    // against a reader that keeps nothing, at the same revision.
    const auto same_as_plain = [&] {
        for (const std::string &text : texts) {
            CAPTURE(text);
            cxapian::MatchOptions plain = options;
            plain.kept_tables = false;
            const auto expected = run(*reader, parse(text), plain);
            cxapian::MatchOptions kept = options;
            kept.kept_tables = true;
            kept.hit_value_slot = modified_slot;
            for (int search = 0; search < 3; ++search) {
                if (search == 2) cxapian::TableMaker::wait();
                const auto got = run(*reader, parse(text), kept);
                CHECK(got->estimated == expected->estimated);
                for (const Xapian::docid did : docids(*got)) {
                    CHECK(got->hit_value(did, modified_slot) ==
                          reader->database.get_document(did).get_value(modified_slot));
                }
                const auto expected_hits = hits(*expected), got_hits = hits(*got);
                REQUIRE(got_hits.size() == expected_hits.size());
                for (size_t i = 0; i < got_hits.size(); ++i) {
                    CHECK(got_hits[i].first == expected_hits[i].first);
                    CHECK(got_hits[i].second == doctest::Approx(expected_hits[i].second).epsilon(1e-12));
                }
            }
        }
    };
    same_as_plain();
    CHECK(run(*reader, parse("\"zebrafish leak\""), options)->page_size == 0);
    // A new word, given its positional number now, and a common word's frequency moved: the next revision's searches
    // must not answer from what the last one's read.
    for (int i = 0; i < 60; ++i) index.add(Item{"zebrafish report", "a zebrafish leak and a leak again", 5.0, "open"});
    index.commit();
    reader->database.reopen();
    same_as_plain();
    CHECK(run(*reader, parse("\"zebrafish leak\""), options)->page_size == 20);
    // The hits' values were read from the reader's table of their slot, at both revisions.
    CHECK(reader->hit_values.tables_made() == 2);
}

TEST_CASE("a search of several databases with kept tables asked for matches as one that keeps nothing") {
    TempIndex first(nullptr, nullptr, true), second(nullptr, nullptr, true);
    for (const Item &item : corpus(120)) first.add(item);
    for (const Item &item : corpus(80)) second.add(item);
    first.commit();
    second.commit();
    Xapian::Database combined(first.path());
    combined.add_database(Xapian::Database(second.path()));
    cxapian::Reader reader{combined, ""};
    reader.parts = {Xapian::Database(first.path()), Xapian::Database(second.path())};
    cxapian::MatchOptions options = ranked_options();
    options.layout.title_prefix = title_prefix;
    options.layout.positions_key = packed_positions.key;
    for (const std::string text : {"leak", "memory leak", "\"memory leak\"", "leak OR crash"}) {
        CAPTURE(text);
        cxapian::MatchOptions plain = options;
        plain.kept_tables = false;
        cxapian::MatchOptions kept = options;
        kept.kept_tables = true;
        kept.hit_value_slot = modified_slot;
        const auto expected = run(reader, parse(text), plain);
        const auto got = run(reader, parse(text), kept);
        CHECK(got->estimated == expected->estimated);
        CHECK(hits(*got) == hits(*expected));
        CHECK(got->page_size > 0);
    }
}

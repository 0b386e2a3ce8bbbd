// sources_tests.cpp — the engine's posting sources on their own: what each lists, and the weights it gives.

#include "fixture.h"
#include "slot_values.h"
#include "sources/deadline.h"
#include "sources/docid_list.h"
#include "sources/word.h"

#include <doctest/doctest.h>

#include <chrono>
#include <set>

using namespace engine_tests;

namespace {

/// The docids `source` lists when walked with next() from the start.
std::vector<Xapian::docid> walk(Xapian::PostingSource &source, const Xapian::Database &database) {
    source.init(database);
    std::vector<Xapian::docid> listed;
    for (source.next(0); !source.at_end(); source.next(0)) listed.push_back(source.get_docid());
    return listed;
}

}  // namespace

TEST_CASE("a deadline source lists every document until its deadline, then ends and says it stopped") {
    TempIndex index;
    for (int i = 0; i < 300; ++i) index.add({"title", "detail"});
    index.commit();
    const Xapian::Database database(index.path());

    auto unlimited_flag = std::make_shared<std::atomic<bool>>(false);
    cxapian::DeadlineSource unlimited(
        std::make_shared<cxapian::MatchClock>(std::chrono::steady_clock::time_point::max(), unlimited_flag));
    const auto all = walk(unlimited, database);
    REQUIRE(all.size() == 300);
    CHECK(all.front() == 1);
    CHECK(all.back() == 300);
    CHECK_FALSE(unlimited_flag->load());

    auto passed_flag = std::make_shared<std::atomic<bool>>(false);
    cxapian::DeadlineSource passed(
        std::make_shared<cxapian::MatchClock>(std::chrono::steady_clock::now() - std::chrono::seconds(1), passed_flag));
    const auto some = walk(passed, database);
    CHECK(some.size() < 64);  // the clock is read every 64 documents
    CHECK(passed_flag->load());
    // It holds every document as far as the matcher's estimates go, so a filter's bounds are the query's.
    CHECK(passed.get_termfreq_est() == 300);
}

TEST_CASE("a docid list source matches exactly its documents, each with its weight") {
    TempIndex index;
    for (int i = 0; i < 50; ++i) index.add({"title", "detail"});
    index.commit();
    const Xapian::Database database(index.path());
    const std::vector<Xapian::docid> listed = {3, 7, 8, 42};
    const std::vector<double> weights = {0.5, 2.0, 1.0, 4.0};
    auto *source = new cxapian::DocidListSource(listed, weights);
    Xapian::Enquire enquire(database);
    enquire.set_query(Xapian::Query(source->release()));
    const Xapian::MSet found = enquire.get_mset(0, 100);
    std::map<Xapian::docid, double> got;
    for (auto hit = found.begin(); hit != found.end(); ++hit) got[*hit] = hit.get_weight();
    CHECK(got == std::map<Xapian::docid, double>{{3, 0.5}, {7, 2.0}, {8, 1.0}, {42, 4.0}});
    // Ranked by those weights.
    CHECK(*found.begin() == 42);
}

TEST_CASE("a constant source adds its weight to the documents an AND_MAYBE's required side matches") {
    TempIndex index;
    index.add({"memory leak", "in the server"});
    index.add({"crash", "no leak here"});
    index.add({"crash", "nothing"});
    index.commit();
    const Xapian::Database database(index.path());
    const Xapian::Query required(Xapian::Query::OP_OR, Xapian::Query("leak"), Xapian::Query("Sleak"));
    Xapian::Enquire enquire(database);
    enquire.set_query(Xapian::Query(Xapian::Query::OP_AND_MAYBE, Xapian::Query(Xapian::Query::OP_SCALE_WEIGHT, required, 0),
                                    Xapian::Query((new cxapian::ConstantSource(2.5))->release())));
    const Xapian::MSet found = enquire.get_mset(0, 10);
    REQUIRE(found.size() == 2);
    for (auto hit = found.begin(); hit != found.end(); ++hit) CHECK(hit.get_weight() == doctest::Approx(2.5));
}

TEST_CASE("a slot range source with a term lists the term's documents, checks them in the table, counts as the term") {
    TempIndex index;
    for (const Item &item : corpus(300)) index.add(item);
    index.commit();
    const Xapian::Database database(index.path());
    const auto table = cxapian::SlotValues::read(database, status_slot);
    REQUIRE(bool(table));
    for (const std::string status : {"open", "completed", "closed", "none"}) {
        CAPTURE(status);
        const std::string term = status_prefix + status;
        const auto leaf = cxapian::ValueRangeLeaf::term_of_value(term, status_slot, status);
        CHECK(leaf.bounded());
        const std::vector<Xapian::docid> expected(database.postlist_begin(term), database.postlist_end(term));
        cxapian::SlotRangeSource walked(table, status_slot, leaf.begin, leaf.end, leaf.term);
        CHECK(walk(walked, database) == expected);
        CHECK(walked.get_termfreq_min() == database.get_termfreq(term));
        CHECK(walked.get_termfreq_est() == database.get_termfreq(term));
        CHECK(walked.get_termfreq_max() == database.get_termfreq(term));
        // Checked one docid at a time, as an AND checks its filters: true for exactly the term's documents.
        cxapian::SlotRangeSource checked(table, status_slot, leaf.begin, leaf.end, leaf.term);
        checked.init(database);
        std::vector<Xapian::docid> members;
        for (Xapian::docid did = 1; did <= database.get_lastdocid(); ++did) {
            if (checked.check(did, 0)) members.push_back(did);
        }
        CHECK(members == expected);
        // Skipped through after a check, as the matcher mixes the two.
        cxapian::SlotRangeSource mixed(table, status_slot, leaf.begin, leaf.end, leaf.term);
        mixed.init(database);
        std::vector<Xapian::docid> skipped;
        for (Xapian::docid did = 1; did <= database.get_lastdocid(); did += 7) {
            if (mixed.check(did, 0)) continue;
            mixed.skip_to(did + 3, 0);
            if (mixed.at_end()) break;
            skipped.push_back(mixed.get_docid());
        }
        for (Xapian::docid did : skipped) CHECK(std::binary_search(expected.begin(), expected.end(), did));
        // In a query, beside a word: Xapian's page and estimate for the term.
        Xapian::Enquire plain(database);
        plain.set_query(Xapian::Query(Xapian::Query::OP_FILTER, Xapian::Query("leak"), Xapian::Query(term)));
        Xapian::Enquire tabled(database);
        tabled.set_query(Xapian::Query(Xapian::Query::OP_FILTER, Xapian::Query("leak"),
                                       cxapian::with_value_tables(leaf.leaf, {leaf}, [&](Xapian::valueno) {
                                           return table;
                                       })));
        const Xapian::MSet want = plain.get_mset(0, 10), got = tabled.get_mset(0, 10);
        CHECK(got.get_matches_estimated() == want.get_matches_estimated());
        REQUIRE(got.size() == want.size());
        for (Xapian::doccount i = 0; i < got.size(); ++i) CHECK(*got[i] == *want[i]);
    }
}

TEST_CASE("a word source checked at a document it does not list stays there, and goes on from it") {
    // The matcher checks an AND_MAYBE's optional side at each document of its required side. A check that moved
    // past the document to the source's next one left Xapian 1.4's AND_MAYBE, turned AND as the page's weight rose,
    // skipping that next document (`max(lhead, rhead) + 1`).
    TempIndex index;
    const std::set<Xapian::docid> leaking = {3, 7, 8, 15};
    for (Xapian::docid did = 1; did <= 16; ++did) index.add({"title", leaking.count(did) ? "a leak" : "nothing"});
    index.commit();
    const Xapian::Database database(index.path());
    cxapian::TitleBonusSource source({"leak"}, 1.0);
    source.init(database);
    CHECK_FALSE(source.check(2, 0));
    CHECK(source.get_docid() == 2);
    source.next(0);
    CHECK(source.get_docid() == 3);
    CHECK(source.check(3, 0));
    CHECK(source.get_docid() == 3);
    CHECK_FALSE(source.check(5, 0));
    CHECK_FALSE(source.check(5, 0));  // asked again: still not one of its documents
    source.skip_to(5, 0);
    CHECK(source.get_docid() == 7);
    CHECK(source.check(8, 0));
    CHECK_FALSE(source.check(9, 0));
    source.skip_to(12, 0);
    CHECK(source.get_docid() == 15);
    CHECK(source.check(16, 0));  // past its last document: at its end
    CHECK(source.at_end());
    // Walked with checks only, it says yes for exactly its documents.
    cxapian::TitleBonusSource checked({"leak"}, 1.0);
    checked.init(database);
    std::set<Xapian::docid> members;
    for (Xapian::docid did = 1; did <= 16; ++did) {
        if (checked.check(did, 0) && !checked.at_end() && checked.get_docid() == did) members.insert(did);
    }
    CHECK(members == leaking);
}

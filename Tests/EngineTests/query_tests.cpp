// query_tests.cpp — the engine's query rewrites on their own: compound words and more like this.

#include "compounds.h"
#include "fixture.h"
#include "query_parts.h"
#include "similar.h"
#include "slot_values.h"

#include <doctest/doctest.h>

using namespace engine_tests;

TEST_CASE("a compound word counts once, at the better of its forms") {
    TempIndex index;
    index.add({"zookeeper", "zookeeper zoo keeper"});
    index.add({"zookeeper", "zookeeper"});
    index.add({"zoo", "keeper of the zoo"});
    index.commit();
    const Xapian::Database database(index.path());
    const Xapian::Query parsed = parse("zookeeper OR zoo OR keeper");
    const Xapian::Query grouped =
        cxapian::group_compounds(parsed, {{"zookeeper", "zoo", "keeper"}}, Xapian::Stem("english"), title_prefix);
    CHECK(grouped.get_description().find("MAX") != std::string::npos);
    CHECK(matching(database, grouped) == matching(database, parsed));
    // The document holding both forms no longer outweighs the one holding the word alone by the parts' weight.
    Xapian::Enquire enquire(database);
    enquire.set_query(grouped);
    const Xapian::MSet found = enquire.get_mset(0, 10);
    std::map<Xapian::docid, double> weight;
    for (auto hit = found.begin(); hit != found.end(); ++hit) weight[*hit] = hit.get_weight();
    enquire.set_query(parsed);
    const Xapian::MSet ungrouped = enquire.get_mset(0, 10);
    std::map<Xapian::docid, double> ungrouped_weight;
    for (auto hit = ungrouped.begin(); hit != ungrouped.end(); ++hit) ungrouped_weight[*hit] = hit.get_weight();
    CHECK(weight.at(1) < ungrouped_weight.at(1));
    // Compounds whose leaves the query does not hold leave it as it is.
    const Xapian::Query other = parse("crash");
    CHECK(cxapian::group_compounds(other, {{"zookeeper", "zoo", "keeper"}}, Xapian::Stem("english"), title_prefix)
              .get_description()
          == other.get_description());
}

TEST_CASE("more like this finds the document itself first, and refuses an unknown one") {
    TempIndex index;
    for (const Item &item : corpus(300)) index.add(item);
    index.add({"zookeeper session lease expired", "the zookeeper session lease expired after a socket timeout"});
    index.commit();
    auto reader = index.reader();
    const cxapian::FieldedRanking ranking =
        cxapian::make_fielded_ranking(*ranked_options().ranking, reader->index_layout({}));
    const Xapian::Query similar = cxapian::similar_query(reader->database, "Q301", 32, ranking, 0.15);
    CHECK_FALSE(similar.empty());
    cxapian::MatchOptions options = ranked_options();
    const auto result = run(*reader, similar, options);
    REQUIRE(result->page_size > 1);
    CHECK(result->hit(0).first == 301);
    CHECK_THROWS_AS(cxapian::similar_query(reader->database, "Q999", 32, ranking, 0.15), Xapian::InvalidArgumentError);
}

TEST_CASE("a query matching all is made fresh, never a copy of Xapian's static MatchAll") {
    // The static's reference count is not atomic: copies made and dropped by concurrent searches corrupted it, and a
    // search's query was later freed twice (a crash in a query's destructor under the parallel test suite).
    CHECK(cxapian::match_all().internal.get() != Xapian::Query::MatchAll.internal.get());
    CHECK(cxapian::match_all().get_type() == Xapian::Query::LEAF_MATCH_ALL);
    const cxapian::ValueRangeLeaf unbounded = cxapian::ValueRangeLeaf::make(1, std::nullopt, std::nullopt);
    CHECK(unbounded.leaf.internal.get() != Xapian::Query::MatchAll.internal.get());
    CHECK(unbounded.leaf.get_type() == Xapian::Query::LEAF_MATCH_ALL);
}

// positions_tests.cpp — packed positions (positions.h): a phrase, ordered window or NEAR matches, weighs and is
// estimated against a document's packed positions as Xapian's own check over its position lists does.

#include "fixture.h"

#include <doctest/doctest.h>

#include <functional>
#include <map>
#include <set>

using namespace engine_tests;

namespace {

using Q = Xapian::Query;

/// Each document `query` matches in `database`, with its BM25 weight.
std::map<Xapian::docid, double> weighed(const Xapian::Database &database, const Q &query) {
    Xapian::Enquire enquire(database);
    enquire.set_query(query);
    enquire.set_docid_order(Xapian::Enquire::ASCENDING);
    const Xapian::MSet found = enquire.get_mset(0, database.get_doccount() + 1);
    std::map<Xapian::docid, double> list;
    for (auto hit = found.begin(); hit != found.end(); ++hit) list[*hit] = hit.get_weight();
    return list;
}

/// What a match of `query` estimates with nothing examined (the operators' own estimates).
Xapian::doccount estimated(const Xapian::Database &database, const Q &query) {
    Xapian::Enquire enquire(database);
    enquire.set_query(query);
    return enquire.get_mset(0, 0).get_matches_estimated();
}

/// A small random number generator, the same sequence every run.
struct Random {
    uint64_t state;
    uint64_t below(uint64_t bound) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return (state >> 33) % bound;
    }
};

/// Documents over a few words, most repeated, with CJK text (its bigrams have no positions), some long, indexed
/// with Xapian's positions into `plain` and packed into `packed`, the same docids in both.
void fill(TempIndex &plain, TempIndex &packed, unsigned count, uint64_t seed) {
    static const std::vector<std::string> words = {"a", "b", "c", "d", "e", "a", "a", "b", "f", "日本", "本語"};
    Random random{seed};
    Xapian::TermGenerator generator;
    generator.set_flags(Xapian::TermGenerator::FLAG_CJK_NGRAM);
    for (unsigned i = 0; i < count; ++i) {
        std::string title, detail;
        for (uint64_t n = 1 + random.below(4); n > 0; --n) title += words[random.below(words.size())] + " ";
        // One in twenty is long: it keeps Xapian's positions in the packing index (max_packed_positions).
        const uint64_t length = i % 20 == 7 ? cxapian::max_packed_positions + random.below(100) : random.below(25);
        for (uint64_t n = length; n > 0; --n) detail += words[random.below(words.size())] + " ";
        Xapian::Document document;
        document.add_term("XKitem", 1);
        generator.set_document(document);
        generator.index_text(title, 0, title_prefix);
        generator.increase_termpos();
        generator.index_text(detail);
        plain.add(document);
        packed.add(document);
    }
    plain.commit();
    packed.commit();
}

/// A part of a phrase: a detail word, a title word, or a word in either (the OR the parser makes for the default
/// field), or two detail words.
Q random_part(Random &random) {
    static const std::vector<std::string> words = {"a", "b", "c", "d", "e", "f", "日", "本", "語", "missing"};
    const std::string word = words[random.below(words.size())];
    switch (random.below(6)) {
        case 0: return Q(title_prefix + word);
        case 1: return Q(Q::OP_OR, Q(word), Q(title_prefix + word));
        case 2: return Q(Q::OP_OR, Q(word), Q(words[random.below(words.size())]));
        default: return Q(word);
    }
}

/// The leaf terms of a part, in order.
std::vector<std::string> leaves(const Q &part) {
    if (part.get_type() == Q::LEAF_TERM) return {*part.get_terms_begin()};
    std::vector<std::string> terms;
    for (size_t i = 0; i < part.get_num_subqueries(); ++i) {
        for (const auto &term : leaves(part.get_subquery(i))) terms.push_back(term);
    }
    return terms;
}

/// The positions of each part (any of its terms) in document `did`, from Xapian's position lists.
std::vector<std::vector<Xapian::termpos>> part_positions(const Xapian::Database &database, Xapian::docid did,
                                                         const std::vector<std::vector<std::string>> &parts) {
    std::vector<std::vector<Xapian::termpos>> lists;
    for (const auto &terms : parts) {
        std::set<Xapian::termpos> positions;
        for (const auto &term : terms) {
            for (auto at = database.positionlist_begin(did, term); at != database.positionlist_end(did, term); ++at) {
                positions.insert(*at);
            }
        }
        lists.emplace_back(positions.begin(), positions.end());
    }
    return lists;
}

/// Some placement of each part at a distinct position of its own, all within `window` (the highest less than
/// `window` past the lowest), found by trying every placement from each lowest position.
bool near_by_definition(Xapian::termpos window, const std::vector<std::vector<Xapian::termpos>> &lists) {
    std::set<Xapian::termpos> starts;
    for (const auto &list : lists) starts.insert(list.begin(), list.end());
    for (const Xapian::termpos start : starts) {
        std::vector<Xapian::termpos> taken;
        std::function<bool(size_t)> place = [&](size_t part) {
            if (part == lists.size()) return true;
            for (const Xapian::termpos position : lists[part]) {
                if (position < start || position - start >= window) continue;
                if (std::find(taken.begin(), taken.end(), position) != taken.end()) continue;
                taken.push_back(position);
                if (place(part + 1)) return true;
                taken.pop_back();
            }
            return false;
        };
        if (place(0)) return true;
    }
    return false;
}

bool shares_a_term(const std::vector<std::vector<std::string>> &parts) {
    std::set<std::string> seen;
    for (const auto &terms : parts) {
        for (const auto &term : std::set<std::string>(terms.begin(), terms.end())) {
            if (!seen.insert(term).second) return true;
        }
    }
    return false;
}

}  // namespace

TEST_CASE("packing positions keeps every term and its wdf, and the positions come back from the document's data") {
    TempIndex plain;
    TempIndex packed(nullptr, nullptr, true);
    for (const Item &item : corpus(200)) {
        plain.add(item);
        packed.add(item);
    }
    // Positions no term generator gives: position 0, two terms at one position, gaps of two, and wide ones (numbers
    // of four bytes).
    Xapian::Document placed;
    const std::vector<std::pair<std::string, Xapian::termpos>> postings = {
        {"x", 0}, {"y", 1}, {"z", 1}, {"x", 3}, {"y", 5}, {"z", 70000}, {"x", 3000000}, {"y", 3000002}};
    for (const auto &posting : postings) placed.add_posting(posting.first, posting.second);
    plain.add(placed);
    packed.add(placed);
    plain.commit();
    packed.commit();
    const Xapian::Database with(plain.path());
    const Xapian::Database without(packed.path());
    CHECK(with.has_positions());
    CHECK_FALSE(without.has_positions());
    // A long document keeps Xapian's positions, and gets no data.
    Item long_one{"a long one", ""};
    for (size_t i = 0; i <= cxapian::max_packed_positions; ++i) long_one.detail += "word ";
    const Xapian::docid long_did = packed.add(long_one);
    packed.commit();
    const Xapian::Database mixed(packed.path());
    CHECK(mixed.has_positions());
    CHECK(mixed.get_document(long_did).get_data().empty());
    CHECK(mixed.positionlist_begin(long_did, "word") != mixed.positionlist_end(long_did, "word"));
    CHECK(without.get_doccount() == with.get_doccount());
    CHECK(without.get_total_length() == with.get_total_length());
    std::map<uint32_t, std::string> terms;  // number → term, from the metadata
    for (auto key = without.metadata_keys_begin(cxapian::PositionTerms::entry_prefix);
         key != without.metadata_keys_end(cxapian::PositionTerms::entry_prefix); ++key) {
        const std::string value = without.get_metadata(*key);
        const char *at = value.data();
        uint32_t number = 0;
        REQUIRE(cxapian::read_varint(at, at + value.size(), number));
        CHECK(terms.emplace(number, (*key).substr(1)).second);  // one term a number
    }
    CHECK(std::to_string(terms.size()) == without.get_metadata(packed_positions.key));
    for (Xapian::docid did = 1; did <= with.get_lastdocid(); ++did) {
        CAPTURE(did);
        std::set<std::pair<Xapian::termpos, std::string>> expected, got;
        auto other = without.termlist_begin(did);
        for (auto term = with.termlist_begin(did); term != with.termlist_end(did); ++term, ++other) {
            REQUIRE(other != without.termlist_end(did));
            CHECK(*other == *term);
            CHECK(other.get_wdf() == term.get_wdf());
            for (auto at = term.positionlist_begin(); at != term.positionlist_end(); ++at) {
                expected.insert({*at, *term});
            }
        }
        CHECK(other == without.termlist_end(did));
        cxapian::unpack_positions(without.get_document(did).get_data(),
                                  [&](uint64_t position, uint32_t number) {
                                      REQUIRE(terms.count(number) == 1);
                                      got.insert({Xapian::termpos(position), terms[number]});
                                  });
        CHECK(got == expected);
    }
}

TEST_CASE("phrases, windows and NEAR match, weigh and are estimated over packed positions as Xapian's check") {
    TempIndex plain;
    TempIndex packed(nullptr, nullptr, true);
    fill(plain, packed, 600, 7);
    const Xapian::Database with(plain.path());
    const Xapian::Database without(packed.path());
    Random random{99};
    unsigned matched = 0, near_beyond_xapian = 0;
    for (unsigned round = 0; round < 1500; ++round) {
        std::vector<Q> parts;
        for (uint64_t n = 2 + random.below(3); n > 0; --n) parts.push_back(random_part(random));
        const uint64_t choice = random.below(3);
        const Q::op op = choice == 2 ? Q::OP_NEAR : Q::OP_PHRASE;
        // Exact phrases, wider windows (ADJ/n), and windows narrower than the phrase (which nothing matches).
        const Xapian::termcount window =
            choice == 0 ? Xapian::termcount(parts.size()) : Xapian::termcount(1 + random.below(parts.size() + 4));
        const Q phrase(op, parts.begin(), parts.end(), window);
        CAPTURE(phrase.get_description());
        const auto xapians = weighed(with, phrase);
        const Q translated = cxapian::check_positions(phrase, packed_positions);
        CHECK(translated.get_description().find("PHRASE") == std::string::npos);
        CHECK(translated.get_description().find("NEAR") == std::string::npos);
        // The same documents over the packed positions and over Xapian's own positions, each weighed as its words.
        const auto got = weighed(without, translated);
        CHECK(weighed(with, translated) == got);
        const auto words = weighed(with, Q(Q::OP_AND, parts.begin(), parts.end()));
        for (const auto &hit : got) {
            CAPTURE(hit.first);
            REQUIRE(words.count(hit.first) == 1);
            CHECK(hit.second == doctest::Approx(words.at(hit.first)).epsilon(1e-12));
        }
        if (op == Q::OP_PHRASE) {
            REQUIRE(got.size() == xapians.size());
            for (const auto &hit : xapians) {
                CAPTURE(hit.first);
                REQUIRE(got.count(hit.first) == 1);
                CHECK(got.at(hit.first) == doctest::Approx(hit.second).epsilon(1e-12));
            }
        } else {
            // NEAR is what its definition says, checked in every document by trying every placement. Xapian's own
            // check matches no more; it matches fewer only where a term stands in two parts, its heap then moving one
            // part past a placement that was there.
            std::vector<std::vector<std::string>> terms;
            for (const Q &part : parts) terms.push_back(leaves(part));
            std::set<Xapian::docid> defined;
            for (Xapian::docid did = 1; did <= with.get_lastdocid(); ++did) {
                if (near_by_definition(window, part_positions(with, did, terms))) defined.insert(did);
            }
            std::set<Xapian::docid> found;
            for (const auto &hit : got) found.insert(hit.first);
            CHECK(found == defined);
            for (const auto &hit : xapians) CHECK(found.count(hit.first) == 1);
            if (!shares_a_term(terms)) CHECK(xapians.size() == found.size());
            near_beyond_xapian += found.size() - xapians.size();
        }
        // Weightless (scaled by 0, as the fielded ranking wraps a phrase), and its estimate Xapian's.
        const Q weightless(Q::OP_SCALE_WEIGHT, phrase, 0.0);
        const Q checked_weightless = cxapian::check_positions(weightless, packed_positions);
        CHECK(estimated(without, checked_weightless) == estimated(with, weightless));
        // Filtered (a phrase checked by check(), not walked), as pair terms and date ranges filter them.
        const Q filter(Q::OP_FILTER, Q("XKitem"), weightless);
        CHECK(weighed(without, cxapian::check_positions(filter, packed_positions)).size() == got.size());
        matched += got.empty() ? 0 : 1;
    }
    CHECK(matched > 300);  // the test is of something: most rounds match some documents
    MESSAGE("NEAR matches Xapian's check missed: " << near_beyond_xapian);
}

TEST_CASE("NEAR needs a distinct position for each part, as Xapian's NearPostList") {
    const std::vector<std::vector<Xapian::termpos>> once = {{5}, {5}};
    CHECK_FALSE(cxapian::phrase_holds(cxapian::Proximity::near, 10, once));  // "a NEAR a" with one "a"
    const std::vector<std::vector<Xapian::termpos>> twice = {{5, 9}, {5, 9}};
    CHECK(cxapian::phrase_holds(cxapian::Proximity::near, 10, twice));
    CHECK_FALSE(cxapian::phrase_holds(cxapian::Proximity::near, 4, twice));  // 9 − 5 is not below a window of 4
    // Three parts over two positions cannot each take one; over three they can.
    CHECK_FALSE(cxapian::phrase_holds(cxapian::Proximity::near, 10, {{1, 2}, {1, 2}, {1, 2}}));
    CHECK(cxapian::phrase_holds(cxapian::Proximity::near, 10, {{1, 2}, {1, 2}, {2, 3}}));
    CHECK(cxapian::phrase_holds(cxapian::Proximity::exact, 2, {{3, 7}, {8}}));
    CHECK(cxapian::phrase_holds(cxapian::Proximity::exact, 2, {{0}, {1}}));  // from position 0
    CHECK_FALSE(cxapian::phrase_holds(cxapian::Proximity::exact, 2, {{3, 8}, {8}}));
    CHECK(cxapian::phrase_holds(cxapian::Proximity::ordered, 4, {{3}, {5}}));
    CHECK_FALSE(cxapian::phrase_holds(cxapian::Proximity::ordered, 4, {{5}, {3}}));  // in order only
}

TEST_CASE("a query's phrases are all checked, or the query is refused") {
    const std::vector<Q> words = {Q("a"), Q("b")};
    const Q phrase(Q::OP_PHRASE, words.begin(), words.end(), 2);
    // No layout: Xapian's own operators stay.
    CHECK(cxapian::check_positions(phrase, cxapian::PositionsLayout{}).get_description() == phrase.get_description());
    // Under AND, OR, FILTER and scaling by any factor.
    const Q scaled(Q::OP_SCALE_WEIGHT, Q(Q::OP_OR, Q("c"), phrase), 2.5);
    const Q deep(Q::OP_AND, Q("x"), Q(Q::OP_FILTER, scaled, Q("y")));
    const std::string checked = cxapian::check_positions(deep, packed_positions).get_description();
    CHECK(checked.find("PHRASE") == std::string::npos);
    CHECK(checked.find("2.5 * ") != std::string::npos);
    CHECK(checked.find("PhraseSource(exact 2 a b)") != std::string::npos);
    // A part that is no word, and a phrase under an operator it cannot rebuild: refused, never matched as an AND.
    const std::vector<Q> odd = {Q("a"), Q(Q::OP_AND, Q("b"), Q("c"))};
    CHECK_THROWS_AS(cxapian::check_positions(Q(Q::OP_PHRASE, odd.begin(), odd.end(), 2), packed_positions),
                    Xapian::UnimplementedError);
    const std::vector<Q> elite = {phrase, Q("c")};
    CHECK_THROWS_AS(cxapian::check_positions(Q(Q::OP_ELITE_SET, elite.begin(), elite.end(), 1), packed_positions),
                    Xapian::UnimplementedError);
}

TEST_CASE("an index's term numbers are given once, kept, and shared by a build's shards") {
    TempIndex one(nullptr, nullptr, true);
    TempIndex two(nullptr, nullptr, true);
    cxapian::PositionTerms shared(packed_positions.key, false);
    CHECK(shared.number("alpha", one.writable()) == 0);
    CHECK(shared.number("beta", two.writable()) == 1);
    CHECK(shared.number("alpha", two.writable()) == 0);  // known: not written again
    CHECK(shared.number("gamma", one.writable()) == 2);
    one.commit();
    two.commit();
    CHECK(one.writable().get_metadata("Palpha") != "");
    CHECK(two.writable().get_metadata("Palpha") == "");
    CHECK(one.writable().get_metadata(packed_positions.key) == "3");
    CHECK(two.writable().get_metadata(packed_positions.key) == "2");
    // An index written over time reads its numbers back, gives the next, and forgets what a cancelled
    // transaction wrote.
    cxapian::PositionTerms reading(packed_positions.key, true);
    CHECK(reading.number("gamma", one.writable()) == 2);
    one.writable().begin_transaction();
    CHECK(reading.number("delta", one.writable()) == 3);
    one.writable().cancel_transaction();
    reading.forget();
    CHECK(reading.number("epsilon", one.writable()) == 3);
    CHECK(reading.number("delta", one.writable()) == 4);
}

TEST_CASE("a search over packed positions finds, ranks and counts what it finds over Xapian's") {
    // With the index's common words' pair terms too, which filter phrases of three words and more.
    for (const bool pairs : {false, true}) {
        CAPTURE(pairs);
        const std::string common = "the\nmemory\nleak\nserver\n";
        auto words = pairs ? std::make_shared<const cxapian::WordPairs>(common, title_prefix) : nullptr;
        TempIndex plain(words);
        TempIndex packed(words, nullptr, true);
        for (const Item &item : corpus(500)) {
            plain.add(item);
            packed.add(item);
        }
        plain.writable().set_metadata("pairs", pairs ? common : "");
        packed.writable().set_metadata("pairs", pairs ? common : "");
        plain.commit();
        packed.commit();
        auto plain_reader = plain.reader();
        auto packed_reader = packed.reader();
        struct Case {
            std::string text;
            std::string bonus;
        };
        const std::vector<Case> cases = {
            {"\"memory leak\"", ""},           {"crash \"memory leak\"", ""},        {"\"the server\" OR leak", ""},
            {"\"leak memory\"", ""},           {"memory NEAR leak", ""},             {"server ADJ/3 crash", ""},
            {"\"the\" \"disk write\"", ""},    {"memory leak", "\"memory leak\""},   {"the server", "\"the server\""},
            {"-\"memory leak\" crash", ""},    {"\"lock retry\" status:open", ""}, {"\"the memory leak\"", ""},
            {"\"memory leak\" OR \"server crash\"", ""}};
        for (const Case &test : cases) {
            for (int strategy = 0; strategy < 4; ++strategy) {
                CAPTURE(test.text);
                CAPTURE(strategy);
                cxapian::MatchOptions options = ranked_options();
                options.layout.title_prefix = title_prefix;
                options.layout.word_pairs_key = "pairs";
                if (!test.bonus.empty()) options.bonus = parse(test.bonus);
                if (strategy == 1) options.rescore_window = 50;
                if (strategy == 2) options.sort_keys = {{modified_slot, true}};
                if (strategy == 3) options.ranking.reset();  // Xapian's BM25 over the query as it is
                // Long-lived readers': their third search at a revision reads their tables (the packed positions').
                options.kept_tables = true;
                cxapian::MatchOptions packed_options = options;
                packed_options.layout.positions_key = packed_positions.key;
                for (int search = 0; search < 2; ++search) {
                    run(*plain_reader, parse(test.text), options);
                    run(*packed_reader, parse(test.text), packed_options);
                    cxapian::TableMaker::wait();
                }
                const auto expected = run(*plain_reader, parse(test.text), options);
                const auto got = run(*packed_reader, parse(test.text), packed_options);
                CHECK(got->estimated == expected->estimated);
                CHECK(got->lower_bound == expected->lower_bound);
                CHECK(got->upper_bound == expected->upper_bound);
                const auto expected_hits = hits(*expected);
                const auto got_hits = hits(*got);
                REQUIRE(got_hits.size() == expected_hits.size());
                for (size_t i = 0; i < got_hits.size(); ++i) {
                    CHECK(got_hits[i].first == expected_hits[i].first);
                    CHECK(got_hits[i].second == doctest::Approx(expected_hits[i].second).epsilon(1e-12));
                }
            }
        }
        // The phrases' positions were read from the packed reader's table.
        CHECK(packed_reader->positions.tables_made() > 0);
    }
}

TEST_CASE("a reader's table of packed positions holds each document's data") {
    TempIndex packed(nullptr, nullptr, true);
    for (const Item &item : corpus(300)) packed.add(item);
    Item long_one{"long", ""};
    for (size_t i = 0; i <= cxapian::max_packed_positions; ++i) long_one.detail += "word ";
    packed.add(long_one);
    packed.commit();
    packed.writable().delete_document(17);  // a hole in the docids
    packed.commit();
    const Xapian::Database database(packed.path());
    const cxapian::PositionsTable table(database);
    REQUIRE(table.complete());
    CHECK(table.revision() == database.get_revision());
    for (Xapian::docid did = 1; did <= database.get_lastdocid() + 1; ++did) {
        CAPTURE(did);
        const bool exists = did != 17 && did <= database.get_lastdocid();
        const std::string data = exists ? database.get_document(did).get_data() : std::string();
        CHECK(std::string(table.positions(did)) == data);
    }
    CHECK(table.positions(database.get_lastdocid()).empty());  // the long one keeps Xapian's positions
}

TEST_CASE("a build's shards merged by compaction keep every number and the largest next one") {
    TempIndex one(nullptr, nullptr, true);
    TempIndex two(nullptr, nullptr, true);
    cxapian::PositionTerms shared(packed_positions.key, false);
    for (const std::string term : {"alpha", "beta", "gamma"}) shared.number(term, one.writable());
    for (const std::string term : {"beta", "delta", "epsilon"}) shared.number(term, two.writable());
    one.commit();
    two.commit();
    CHECK(one.writable().get_metadata(packed_positions.key) == "3");
    CHECK(two.writable().get_metadata(packed_positions.key) == "5");
    const std::string merged = two.path() + "-merged";
    Xapian::Database both(one.path());
    both.add_database(Xapian::Database(two.path()));
    cxapian::PositionsCompactor compactor(packed_positions.key);
    both.compact(merged, Xapian::DB_BACKEND_GLASS, 0, compactor);
    Xapian::WritableDatabase database(merged, Xapian::DB_OPEN);
    CHECK(database.get_metadata(packed_positions.key) == "5");
    // The merged index goes on numbering after them all, and knows each term by the number its shard gave.
    cxapian::PositionTerms reading(packed_positions.key, true);
    CHECK(reading.number("delta", database) == 3);
    CHECK(reading.number("alpha", database) == 0);
    CHECK(reading.number("zeta", database) == 5);
}

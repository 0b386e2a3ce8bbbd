// match.cpp — a search's plan: the query resolved, rewritten and run by its strategy. Called only from inside the C
// API's guarded entry points, so exceptions thrown here are caught there.

#include "match.h"

#include "compounds.h"
#include "match_strategies.h"
#include "query_rewrite.h"
#include "sources/deadline.h"
#include "snippets.h"

#include <algorithm>
#include <map>

namespace cxapian {

namespace {

/// A table of the hits' values holds at most this many bytes (a unique identifier's short form is under 20 a
/// document): past them, an index's hits read theirs from it.
constexpr size_t max_hit_value_bytes = size_t(128) << 20;

}  // namespace

IndexLayout Reader::index_layout(const LayoutKeys &keys) {
    return layout.get(database, keys.word_pairs_key, keys.stems_key, keys.title_prefix, keys.container_prefix,
                      keys.domain_prefix, PositionsLayout{keys.positions_key});
}

FieldedRanking make_fielded_ranking(const RankingParameters &parameters, const IndexLayout &layout) {
    FieldedRanking fielded(parameters);
    fielded.stems = layout.stems;
    fielded.positions = layout.positions;
    return fielded;
}

void match(Reader &reader, const Xapian::Query &query, const std::vector<ValueRangeLeaf> &ranges,
           const MatchOptions &options, MatchResult &result) {
    if (options.time_limit > 0) {
        // At most an hour (the server's bound): no overflow of the clock, whatever the caller asks.
        const std::chrono::duration<double> limit(std::min(options.time_limit, 3600.0));
        result.clock = std::make_shared<MatchClock>(
            std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(limit),
            result.stopped);
    }
    result.shards = std::max<Xapian::doccount>(reader.database.size(), 1);
    result.database = reader.database;
    IndexLayout layout = reader.index_layout(options.layout);
    // A long-lived reader's tables of value slots, asked for once per slot in a search (a table is made on a
    // revision's second search that asks for it, not on a search that asks twice).
    std::map<Xapian::valueno, std::shared_ptr<const SlotValues>> slot_tables;
    auto slot_table = [&](Xapian::valueno slot) {
        const auto known = slot_tables.find(slot);
        if (known != slot_tables.end()) return known->second;
        return slot_tables[slot] = reader.slot_values.get(reader.database, reader.path, slot);
    };
    // The hits' values (their unique identifiers), each a look-up in the index otherwise: a block read for each hit.
    if (options.kept_tables && reader.database.size() == 1 && options.hit_value_slot) {
        const Xapian::valueno slot = *options.hit_value_slot;
        result.hit_values = reader.hit_values.get(
            reader.database, "hit values " + std::to_string(slot), reader.path,
            [slot](const auto &db) {
                auto table = std::make_shared<const DocumentBytes>(db, slot, max_hit_value_bytes);
                return table->complete() ? table : nullptr;
            },
            [](const DocumentBytes &previous, const auto &db, const auto &changed) {
                auto table = std::make_shared<const DocumentBytes>(previous, db, changed);
                return table->complete() ? table : nullptr;
            });
    }
    // Its value ranges read from them (SlotRangeSource).
    Xapian::Query given = query;
    if (options.kept_tables && reader.database.size() == 1 && !ranges.empty()) {
        given = with_value_tables(given, ranges, slot_table);
    }
    // The query as the index holds it: a project title's documents by their project's domain.
    const Xapian::Query asked = layout.resolve_projects(reader.database, given);
    // The query as a match of documents: a stem's documents read as its class's.
    const Xapian::Query matching = layout.stems->expand(asked);
    const uint32_t facet_shards = reader.parts.empty() ? 1 : uint32_t(reader.parts.size());
    result.facets.reserve(options.facet_slots.size() * facet_shards);
    for (uint32_t shard = 0; shard < facet_shards; ++shard) {
        for (size_t i = 0; i < options.facet_slots.size(); ++i) {
            result.facets.push_back({options.facet_slots[i], shard,
                                      std::make_unique<Xapian::ValueCountMatchSpy>(options.facet_slots[i])});
        }
    }
    if (!reader.parts.empty() && options.facet_slots.size() > 0) {
        // Each database's matches, weighed by nothing: which values they hold, not how well they match.
        for (uint32_t shard = 0; shard < facet_shards; ++shard) {
            const Xapian::Database &part = reader.parts[shard];
            Xapian::Enquire counter = weightless(part, check_positions(matching, layout.positions), result);
            for (auto &facet : result.facets) {
                if (facet.shard == shard) counter.add_matchspy(facet.spy.get());
            }
            counter.get_mset(0, 0, part.get_doccount());
        }
    }
    const Xapian::Query bonus = options.bonus;
    if (!options.ranking) {
        Xapian::Query whole = bonus.empty() ? matching
                                            : Xapian::Query(Xapian::Query::OP_AND_MAYBE, matching,
                                                            layout.stems->expand(bonus));
        result.snippet_terms = snippet_terms(whole);
        const Xapian::Query checked = check_positions(whole, layout.positions);
        // Snippets highlight a phrase's words where they stand together, as the query before its check says.
        if (!layout.positions.empty() && holds_positional(whole)) result.highlight_query = whole;
        if (options.unweighted) {
            match_page(reader.database, checked, Xapian::BoolWeight(), options, result);
        } else {
            match_page(reader.database, checked, Xapian::BM25Weight(), options, result);
        }
        return;
    }
    const RankingParameters &ranking = *options.ranking;
    FieldedRanking fielded_ranking = make_fielded_ranking(ranking, layout);
    // A long-lived reader's searches at one revision share the frequencies and metadata they read (SharedTables keeps
    // the newest revision's): a word searched again, or a filter, is not looked up in the index again.
    std::shared_ptr<const RevisionLookups> shared_lookups;
    if (options.kept_tables && reader.database.size() == 1) {
        const std::string key = SharedTables::key("term lookups", reader.path, reader.database);
        shared_lookups = std::static_pointer_cast<const RevisionLookups>(SharedTables::find(key));
        if (shared_lookups == nullptr) {
            shared_lookups = std::static_pointer_cast<const RevisionLookups>(
                SharedTables::keep(key, std::make_shared<RevisionLookups>()));
        }
    }
    result.frequencies = std::make_shared<TermLookups>(reader.database, shared_lookups);
    fielded_ranking.frequencies = result.frequencies;
    fielded_ranking.clock = result.clock;
    layout.positions.lookups = result.frequencies;
    fielded_ranking.positions = layout.positions;
    if (options.kept_tables && reader.database.size() == 1) {
        if (ranking.title_match > 0) {
            const Xapian::valueno slot = ranking.title_words_slot;
            fielded_ranking.title_words = reader.title_words.get(
                reader.database, "title words " + std::to_string(slot), reader.path,
                [slot](const auto &db) { return std::make_shared<const TitleWords>(db, slot); },
                [slot](const TitleWords &previous, const auto &db, const auto &changed) {
                    return std::make_shared<const TitleWords>(previous, db, slot, changed);
                });
        }
        fielded_ranking.doc_lengths =
            reader.doc_lengths.get(
                reader.database, "lengths", reader.path,
                [](const auto &db) { return std::make_shared<const DocLengths>(db); },
                [](const DocLengths &previous, const auto &db, const auto &changed) {
                    return std::make_shared<const DocLengths>(previous, db, changed);
                });
    }
    // A multi-database's parts each have common words of their own: a pair term means nothing across them.
    const Xapian::Query parsed = reader.database.size() == 1 ? layout.pairs->filter_phrases(asked) : asked;
    // A phrase left to check (not looked up by its pair term) may have many candidates, and the bonus's phrase is
    // checked for each match of its window: a long-lived reader reads their positions from its table (PositionsTable),
    // not each from the index (a look-up, and the inflating of what Xapian compressed).
    if (options.kept_tables && reader.database.size() == 1 && !layout.positions.empty() &&
        (holds_positional(parsed) || holds_positional(bonus))) {
        layout.positions.table = reader.positions.get(
            reader.database, "positions", reader.path,
            [](const auto &db) {
                auto table = std::make_shared<const PositionsTable>(db);
                return table->complete() ? table : nullptr;
            },
            [](const PositionsTable &previous, const auto &db, const auto &changed) {
                auto table = std::make_shared<const PositionsTable>(previous, db, changed);
                return table->complete() ? table : nullptr;
            });
        fielded_ranking.positions = layout.positions;
    }
    // The rewrites read Xapian's phrase operators; what is matched checks them against the index's positions.
    FieldedQuery fielded = rewrite_for_fields(parsed, bonus, reader.database, fielded_ranking);
    result.clocked_sources = fielded.clocked_sources;
    fielded.base = check_positions(fielded.base, layout.positions);
    fielded.bonus = check_positions(fielded.bonus, layout.positions);
    // Snippets find the query's phrases in the stored text, which lacks the compound parts the index has.
    result.highlight_query = phrases_as_written(query);
    if (!result.highlight_query.empty()) result.snippet_terms = snippet_terms(result.highlight_query);
    const FieldedBM25Weight weight(ranking.k1, ranking.b);
    const bool by_relevance = options.sort_keys.size() == 0 || options.by_relevance_first;
    // Only a bonus is worth deferring: it checks positions for every match holding all the words. The title
    // similarity alone costs less inline than weighing the window a second time.
    const bool extras = !fielded.bonus.empty();
    // A page far past the window is rare (and rescoring it would weigh every match anyway): the whole query then.
    const uint64_t page_end = uint64_t(options.first) + options.max_items;
    // The window is a list of docids, which a multi-database's parts do not share: several stores rank in one pass.
    const bool one_part = reader.database.size() == 1;
    // Its matches counted apart from its page where walking them again costs little (see match_page()): known from
    // the query as parsed, before its words became posting sources.
    const bool one_pass = walks_in_one_pass(parsed);
    const bool weighted = weighs(parsed);
    if (!by_relevance && one_part && !options.collapse) {
        std::shared_ptr<const SlotValues> table;
        if (options.kept_tables && options.sort_keys.size() == 1) table = slot_table(options.sort_keys[0].slot);
        match_by_value(reader.database, check_positions(layout.stems->expand(parsed), layout.positions), fielded,
                       weight, options, result, std::move(table));
    } else if (options.rescore_window > 0 && one_part && by_relevance && extras
               && page_end <= uint64_t(options.rescore_window) * 10) {
        const auto window = static_cast<Xapian::doccount>(std::max<uint64_t>(options.rescore_window, page_end));
        match_rescored(reader.database, fielded, fielded_ranking, weight, options, window, result, one_pass, weighted);
    } else {
        match_page(reader.database, fielded.whole(), weight, options, result, nullptr, one_pass, weighted);
    }
}

}  // namespace cxapian

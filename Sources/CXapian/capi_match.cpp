// capi_match.cpp — the C API of matching: the options converted for the engine (engine/match.h), more like this,
// and a match set's hits, counts, facets and snippets.

#include "capi.h"

#include <xapian.h>

#include <memory>
#include <string>
#include <string_view>

using namespace cxapian::capi;

namespace {

std::string text_of(const char *value) { return value != nullptr ? std::string(value) : std::string(); }

cxapian::LayoutKeys layout_keys(const cxapian_index_layout *layout) {
    if (layout == nullptr) return {};
    return {text_of(layout->word_pairs_key),   text_of(layout->stems_key),     text_of(layout->title_prefix),
            text_of(layout->container_prefix), text_of(layout->domain_prefix), text_of(layout->positions_key)};
}

cxapian::RankingParameters ranking_parameters(const cxapian_fielded_ranking &ranking) {
    return {ranking.k1,          ranking.b,           ranking.title_bonus, text_of(ranking.title_prefix),
            ranking.title_match, ranking.title_words_slot};
}

cxapian::MatchOptions match_options(const cxapian_enquire_options &options) {
    cxapian::MatchOptions match;
    match.first = options.first;
    match.max_items = options.max_items;
    for (size_t i = 0; i < options.sort_key_count; ++i) {
        match.sort_keys.push_back({options.sort_keys[i].slot, options.sort_keys[i].descending});
    }
    match.by_relevance_first = options.by_relevance_first;
    match.docids_descending = options.docids_descending;
    match.facet_slots.assign(options.facet_slots, options.facet_slots + options.facet_slot_count);
    match.check_at_least = options.check_at_least;
    match.unweighted = options.unweighted;
    if (options.ranking != nullptr) match.ranking = ranking_parameters(*options.ranking);
    if (options.bonus != nullptr) match.bonus = options.bonus->query;
    match.rescore_window = options.rescore_window;
    match.time_limit = options.time_limit;
    match.collapse = options.collapse;
    match.collapse_slot = options.collapse_slot;
    match.kept_tables = options.kept_tables;
    if (options.hit_values) match.hit_value_slot = options.hit_value_slot;
    match.layout = layout_keys(options.layout);
    return match;
}

}  // namespace

extern "C" {

bool cxapian_query_new_similar(cxapian_database *database, const char *unique_term, size_t unique_term_length,
                               uint32_t max_words, const cxapian_fielded_ranking *ranking,
                               const cxapian_index_layout *layout, double feedback_weight, cxapian_query **out,
                               cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    *out = nullptr;
    const cxapian::FieldedRanking fielded =
        cxapian::make_fielded_ranking(ranking_parameters(*ranking), database->index_layout(layout_keys(layout)));
    *out = new cxapian_query{cxapian::similar_query(database->database, std::string(unique_term, unique_term_length),
                                                    max_words, fielded, feedback_weight)};
    CXAPIAN_GUARD_END(error)
}

bool cxapian_enquire(cxapian_database *database, const cxapian_query *query, const cxapian_enquire_options *options,
                     cxapian_mset **out, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    *out = nullptr;
    auto result = std::make_unique<cxapian_mset>();
    cxapian::match(*database, query->query, query->ranges, match_options(*options), *result);
    *out = result.release();
    CXAPIAN_GUARD_END(error)
}

void cxapian_mset_visit_facets(const cxapian_mset *mset, cxapian_facet_visitor visitor, void *context) {
    try {
        for (const auto &facet : mset->facets) {
            for (auto value = facet.spy->values_begin(); value != facet.spy->values_end(); ++value) {
                const std::string name = *value;
                visitor(context, facet.slot, facet.shard, name.data(), name.size(), value.get_termfreq());
            }
        }
    } catch (...) {
    }
}

bool cxapian_mset_term_frequency(const cxapian_mset *mset, const char *term, size_t length, uint32_t *out,
                                 cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    const std::string name(term, length);
    const Xapian::doccount *known = mset->frequencies ? mset->frequencies->known(name) : nullptr;
    // Else the match's statistics, which hold every term the query names, weighed or not; else the database.
    *out = known != nullptr ? *known : mset->mset.get_termfreq(name);
    CXAPIAN_GUARD_END(error)
}

bool cxapian_mset_snippet(const cxapian_mset *mset, const char *text, size_t length, size_t snippet_length,
                          const char *hi_start, const char *hi_end, const char *omit, char **out, size_t *out_length,
                          cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    *out = nullptr;
    *out_length = 0;
    // No background model: it looks up every word of the text in the index to weigh the words the query lacks,
    // which costs much of a page of long hits; the text given is already the window around the match. The snippet
    // stems every word it walks: a thread's stemmer remembers its stems from one snippet to the next, and passes over
    // the words no stem of the query can come from. It walks only the part of the text its snippet can come from.
    static thread_local cxapian::SnippetStemmer *const stemmer = new cxapian::SnippetStemmer();
    static thread_local const Xapian::Stem english(stemmer);  // owns it
    stemmer->set_initials(mset->snippet_terms.stem_initials);
    // The match set only where Xapian walks the text: ASCII text is walked here, from the query's weights alone.
    const auto for_snippets = [mset]() -> const Xapian::MSet & { return mset->for_snippets(); };
    const std::string snippet = cxapian::snippet(for_snippets, mset->snippet_terms, std::string_view(text, length),
                                                 snippet_length, english, hi_start, hi_end, omit,
                                                 mset->weights_for_snippets());
    hand_out(snippet, out, out_length);
    CXAPIAN_GUARD_END(error)
}

void cxapian_mset_free(cxapian_mset *mset) { delete mset; }

uint32_t cxapian_mset_size(const cxapian_mset *mset) { return mset->page_size; }
uint32_t cxapian_mset_matches_estimated(const cxapian_mset *mset) { return mset->estimated; }
uint32_t cxapian_mset_matches_lower_bound(const cxapian_mset *mset) { return mset->lower_bound; }
uint32_t cxapian_mset_matches_upper_bound(const cxapian_mset *mset) { return mset->upper_bound; }

bool cxapian_mset_hit(const cxapian_mset *mset, uint32_t index, double *weight, char **data, size_t *data_length,
                      cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    const auto hit = mset->hit(index);
    *weight = hit.second;
    hand_out(mset->document(hit.first).get_data(), data, data_length);
    CXAPIAN_GUARD_END(error)
}

bool cxapian_mset_hit_value(const cxapian_mset *mset, uint32_t index, uint32_t slot, double *weight,
                            uint32_t *shard, char **value, size_t *value_length, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    const auto hit = mset->hit(index);
    *weight = hit.second;
    *shard = (hit.first - 1) % mset->shards;
    hand_out(mset->hit_value(hit.first, slot), value, value_length);
    CXAPIAN_GUARD_END(error)
}

}  // extern "C"
// similar.h — more like this (internal to CXapian).

#ifndef CXAPIAN_ENGINE_SIMILAR_H
#define CXAPIAN_ENGINE_SIMILAR_H

#include "fielded_ranking.h"

#include <xapian.h>

#include <string>

namespace cxapian {

/// A query for documents like the one indexed by `unique_term` ("more like this"): its title's words, then the
/// words of its detail Xapian's relevance feedback (the expand set of the document alone) weighs highest, up to
/// `max_words` in all, each as the pair (detail term OR title term) that rewrite_for_fields() ranks; the feedback
/// words count `feedback_weight` times a title word, weighed as BM25 of their detail term alone (under
/// OP_SCALE_WEIGHT, which the rewrite leaves as it is). The document itself matches too (callers leave it out, and
/// may use its score as the best possible). Throws Xapian::InvalidArgumentError if no document has `unique_term`.
Xapian::Query similar_query(const Xapian::Database &database, const std::string &unique_term, size_t max_words,
                            const FieldedRanking &ranking, double feedback_weight);

}  // namespace cxapian

#endif

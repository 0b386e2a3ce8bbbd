// engine.h — Spotlite's search engine over Xapian, the one header the C API includes (internal to CXapian).
//
// The engine is C++ that knows nothing of the C API: it throws as Xapian does, and the C API's entry points (capi_*.cpp)
// catch. One concern a file:
//
//   match.h             a search: its options (MatchOptions), its page (MatchResult), the Reader it runs on, and
//                       match(), which plans it (project titles, stems, pair terms, the ranking's rewrite)
//   match_strategies.h  the ways a page is matched: in relevance order, a rescored window, a sort by value
//   query_rewrite.h     the query rewritten for the two-field ranking (FieldedQuery)
//   fielded_ranking.h   the two-field ranking's parameters; fielded_weight.h its BM25 weight
//   sources/            its posting sources: a word (word.h), the title similarity (title_match.h), the exact-phrase
//                       bonus (phrase_bonus.h), fixed documents (docid_list.h), a deadline (deadline.h)
//   kept_tables.h       the tables a long-lived reader keeps per revision (document lengths, title words);
//   slot_values.h       one of them per value slot, for sorts and ranges; document_bytes.h one byte string of
//                       each document (its packed positions, its unique identifier) in runs shared between revisions
//   changes.h           the writer that records each commit's documents in the index, and what a reader learns from
//                       them: the tables of a new revision are the last one's, patched
//   varint.h            the varints of the engine's metadata and document data
//   index_layout.h      what an index's metadata says of its terms: word_pairs.h (common-word pairs),
//                       stem_terms.h (the stems it leaves out) and positions.h (its positions, packed into each
//                       document's data, and the phrase checks that read them)
//   similar.h           more like this; compounds.h compound words; spellings.h the spelling table's words
//   snippets.h          a hit's snippet, walked over the part of its text it can come from; ascii_snippet.h
//                       Xapian's walk of an ASCII text, ported; stemmer.h the stemmers that index, parse and
//                       highlight
//   term_classes.h, term_lookups.h, query_parts.h   helpers of the rewrites
//   writable.h          opening a database for writing, waiting out a lock a forked child holds for a moment
//
// Tests of its parts: Tests/EngineTests (make test-engine).

#ifndef CXAPIAN_ENGINE_ENGINE_H
#define CXAPIAN_ENGINE_ENGINE_H

#include "ascii_snippet.h"
#include "changes.h"
#include "compounds.h"
#include "index_layout.h"
#include "match.h"
#include "positions.h"
#include "query_parts.h"
#include "similar.h"
#include "slot_values.h"
#include "snippets.h"
#include "spellings.h"
#include "stem_terms.h"
#include "stemmer.h"
#include "word_pairs.h"
#include "writable.h"

#endif

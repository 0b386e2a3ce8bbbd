// compounds.h — compound words weighed as the better of their forms (internal to CXapian).

#ifndef CXAPIAN_ENGINE_COMPOUNDS_H
#define CXAPIAN_ENGINE_COMPOUNDS_H

#include <xapian.h>

#include <string>
#include <vector>

namespace cxapian {

/// `query` with the leaves of each compound word written out with its parts (TextNormalizer: `(W OR w1 OR w2)`
/// among words joined by OR, `(W OR (w1 w2))` otherwise) grouped as OP_MAX(W, parts): the word counts once, at the
/// weight of whichever form a document holds best, so "ZooKeeper" does not outweigh "Zookeeper" three times over.
/// `compounds`: each compound's word then its parts, lowercased, as typed into the query; their terms are made as
/// the query parser makes them (`stemmer`, STEM_SOME: "Z" + stem for a word that starts with a letter). A compound
/// whose leaves are not found as expected is left as it is.
Xapian::Query group_compounds(const Xapian::Query &query, const std::vector<std::vector<std::string>> &compounds,
                              const Xapian::Stem &stemmer, const std::string &title_prefix);

/// `query` with each tight phrase of terms that holds compound words followed by their parts (as the index and the
/// normalised query hold them: "64 bit time_t time t in") written as the text has it ("64 bit time_t in"): the
/// query snippets highlight by, whose phrases must be found in the stored text (an unmatched phrase beside it would
/// spoil Xapian's phrase highlighting). A part is recognised by its letters and digits: the terms that follow a
/// word and spell it out. `query` itself if it has no such phrase.
Xapian::Query phrases_as_written(const Xapian::Query &query);

}  // namespace cxapian

#endif

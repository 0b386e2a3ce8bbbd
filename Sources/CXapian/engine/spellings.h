// spellings.h — which words the spelling table keeps (internal to CXapian).

#ifndef CXAPIAN_ENGINE_SPELLINGS_H
#define CXAPIAN_ENGINE_SPELLINGS_H

#include <xapian.h>

#include <cstddef>
#include <string>
#include <vector>

namespace cxapian {

/// Whether a term (after its prefix) is a word for the spelling table: two bytes or more of lowercase or non-ASCII
/// letters and apostrophes, starting with a letter (an uppercase first byte is another prefix). Terms with digits,
/// underscores or dots are versions, hashes and identifiers (`gtk3`, `0x1f`, `xfs_bmap`): one is not a misspelling
/// of another, and a correction between them (`python2` for `python3`) misleads. They are a large share of
/// a changelog's words.
bool is_spelling_word(const std::string &term, size_t prefix_length);

/// Adds to `database`'s spelling table those of `words` it lacks that are words (is_spelling_word) found in a title
/// (a term `title_prefix` + word) or in the text of `minimum_frequency` documents, each with its frequency in both.
void add_spellings(Xapian::WritableDatabase &database, std::vector<std::string> words,
                   const std::string &title_prefix, Xapian::doccount minimum_frequency);

/// Writes into the first of the databases at `paths` the spelling table of them all: every title word, and the
/// words of the text found in `minimum_frequency` documents, with their frequencies over all the databases.
void add_spellings_from_shards(const std::vector<std::string> &paths, const std::string &title_prefix,
                               Xapian::doccount minimum_frequency);

}  // namespace cxapian

#endif

// index_layout.h — what a reader knows of its database's terms from the database's metadata (internal to CXapian).

#ifndef CXAPIAN_ENGINE_INDEX_LAYOUT_H
#define CXAPIAN_ENGINE_INDEX_LAYOUT_H

#include "positions.h"
#include "stem_terms.h"
#include "word_pairs.h"

#include <xapian.h>

#include <memory>
#include <mutex>
#include <string>

namespace cxapian {

/// An index's term layout: the common words whose pairs have terms (WordPairs) and the language of the stem terms it
/// leaves out where they repeat the word (StemTerms), as its metadata records them; how its documents name their
/// project.
struct IndexLayout {
    std::shared_ptr<const WordPairs> pairs;
    std::shared_ptr<const StemTerms> stems;
    /// Only a project's own document holds the term of its title (this prefix + its key), and every document of the
    /// project holds its domain term (`domain_prefix` + identifier): a filter on a project's title finds the
    /// project's documents by their domain (empty: every document holds its project's title term).
    std::string container_prefix;
    std::string domain_prefix;
    /// Where its documents' positions are packed (positions.h); empty: Xapian keeps them, and phrases stay Xapian's.
    PositionsLayout positions;

    /// `query` with each leaf term of a project title replaced by the OR of the domain terms of the documents that
    /// hold it (nothing where none does), under AND, OR, FILTER, AND_NOT, AND_MAYBE, XOR, SYNONYM and MAX nodes, and
    /// the scaling by 0 of a query of filters alone.
    Xapian::Query resolve_projects(const Xapian::Database &database, const Xapian::Query &query) const;
};

/// A reader's IndexLayout, read once per database: an index keeps its layout for its life, and a new one (a rebuild
/// swapped in, which a reopen moves to) has a new UUID. Safe to use from several threads.
class IndexLayoutCache {
  public:
    /// The layout `database` records under metadata keys `pairs_key` and `stems_key` (either may be empty: none), for
    /// title terms prefixed `title_prefix`, its positions where `positions` says (each database searched says for
    /// itself whether it packs them: PhraseSource). A multi-database's is its first part's: the databases searched
    /// together share one layout (an index of another is rebuilt).
    IndexLayout get(const Xapian::Database &database, const std::string &pairs_key, const std::string &stems_key,
                    const std::string &title_prefix, const std::string &container_prefix,
                    const std::string &domain_prefix, const PositionsLayout &positions) {
        const std::string uuid = database.get_uuid();
        const std::string key = uuid + '\n' + pairs_key + '\n' + stems_key + '\n' + title_prefix + '\n' +
                                container_prefix + '\n' + domain_prefix + '\n' + positions.key;
        std::lock_guard<std::mutex> lock(mutex_);
        if (key != key_ || !layout_.pairs) {
            layout_.pairs = std::make_shared<const WordPairs>(
                pairs_key.empty() ? std::string() : database.get_metadata(pairs_key), title_prefix);
            layout_.stems = std::make_shared<const StemTerms>(
                stems_key.empty() ? std::string() : database.get_metadata(stems_key), title_prefix);
            layout_.container_prefix = container_prefix;
            layout_.domain_prefix = domain_prefix;
            layout_.positions = positions;
            key_ = key;
        }
        return layout_;
    }

  private:
    std::mutex mutex_;
    IndexLayout layout_;
    std::string key_;
};

}  // namespace cxapian

#endif

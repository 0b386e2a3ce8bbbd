// kept_tables.cpp — the tables of kept_tables.h. Called only from inside the C API's guarded entry points, so
// exceptions thrown here are caught there.

#include "kept_tables.h"

#include <map>
#include <mutex>

namespace cxapian {

namespace {

std::mutex shared_tables_mutex;
std::map<std::string, std::weak_ptr<const void>> shared_tables;

}  // namespace

std::string SharedTables::key(const std::string &name, const std::string &path, const Xapian::Database &database) {
    std::string key = name;
    for (const std::string &part :
         {path, database.get_uuid(), std::to_string(database.get_revision()), std::to_string(database.get_doccount()),
          std::to_string(database.get_lastdocid())}) {
        key += '\0';
        key += part;
    }
    return key;
}

std::shared_ptr<const void> SharedTables::find(const std::string &key) {
    std::lock_guard<std::mutex> lock(shared_tables_mutex);
    const auto found = shared_tables.find(key);
    return found != shared_tables.end() ? found->second.lock() : nullptr;
}

std::shared_ptr<const void> SharedTables::keep(const std::string &key, std::shared_ptr<const void> table) {
    std::lock_guard<std::mutex> lock(shared_tables_mutex);
    // Tables no reader holds any more (their revisions are gone) leave the map: it holds a few keys at a time.
    for (auto entry = shared_tables.begin(); entry != shared_tables.end();) {
        entry = entry->second.expired() ? shared_tables.erase(entry) : std::next(entry);
    }
    auto &kept = shared_tables[key];
    if (auto existing = kept.lock()) return existing;
    kept = table;
    return table;
}

// ---- TitleWords ----

TitleWords::TitleWords(const Xapian::Database &database, Xapian::valueno slot) : revision_(database.get_revision()) {
    counts_.assign(static_cast<size_t>(database.get_lastdocid()) + 1, 0);
    const auto end = database.valuestream_end(slot);
    for (auto value = database.valuestream_begin(slot); value != end; ++value) {
        const Xapian::docid did = value.get_docid();
        if (did >= counts_.size()) continue;
        const double words = Xapian::sortable_unserialise(*value);
        // Exactly what the value says, or `unknown` (read from the stream again) for anything a table cannot hold.
        counts_[did] = words >= 0 && words < unknown && words == static_cast<double>(static_cast<uint16_t>(words))
                           ? static_cast<uint16_t>(words)
                           : unknown;
    }
}

DocLengths::DocLengths(const Xapian::Database &database) : revision_(database.get_revision()) {
    lengths_.assign(static_cast<size_t>(database.get_lastdocid()) + 1, unknown);
    // The list of every document (the posting list of the empty term), its lengths read in order.
    const auto end = database.postlist_end(std::string());
    for (auto posting = database.postlist_begin(std::string()); posting != end; ++posting) {
        const Xapian::docid did = *posting;
        if (did >= lengths_.size()) continue;
        const Xapian::termcount length = posting.get_doclength();
        lengths_[did] = length < unknown ? static_cast<uint32_t>(length) : unknown;
    }
}

}  // namespace cxapian

// kept_tables.cpp — the tables of kept_tables.h. Called only from inside the C API's guarded entry points, so
// exceptions thrown here are caught there.

#include "kept_tables.h"

#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace cxapian {

namespace {

/// What SharedTables keeps. Never destroyed: the maker's thread may still use it while the process exits.
struct Kept {
    std::mutex mutex;
    std::map<std::string, std::weak_ptr<const void>> tables;
    /// The newest table of each name and path (a key up to its UUID), held until a newer one replaces it.
    std::map<std::string, std::shared_ptr<const void>> newest;
};

Kept &kept() {
    static Kept *const kept = new Kept;
    return *kept;
}

/// A key's name and path: what its newer tables replace it under.
std::string name_and_path(const std::string &key) {
    const size_t name_end = key.find('\0');
    const size_t path_end = name_end == std::string::npos ? name_end : key.find('\0', name_end + 1);
    return key.substr(0, path_end);
}

/// The TableMaker's queue and thread. Never destroyed, like Kept.
struct Maker {
    std::mutex mutex;
    std::condition_variable changed;
    std::deque<std::pair<std::string, std::function<void()>>> jobs;
    /// The keys of the jobs waiting or running.
    std::set<std::string> pending;
    bool started = false;
    bool running = false;
    bool exiting = false;

    void run() {
        std::unique_lock<std::mutex> lock(mutex);
        for (;;) {
            changed.wait(lock, [this] { return exiting || !jobs.empty(); });
            if (exiting) return;
            auto job = std::move(jobs.front());
            jobs.pop_front();
            running = true;
            lock.unlock();
            try {
                job.second();
            } catch (...) {
                // No table: the searches at that revision go on reading the database, as before it was asked for.
            }
            lock.lock();
            running = false;
            pending.erase(job.first);
            changed.notify_all();
        }
    }
};

Maker &maker() {
    static Maker *const maker = new Maker;
    return *maker;
}

/// At exit: no job starts, and the one running finishes before the library's statics are gone.
void stop_maker() {
    Maker &m = maker();
    std::unique_lock<std::mutex> lock(m.mutex);
    m.exiting = true;
    m.jobs.clear();
    m.changed.notify_all();
    m.changed.wait(lock, [&m] { return !m.running; });
}

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
    Kept &k = kept();
    std::lock_guard<std::mutex> lock(k.mutex);
    const auto found = k.tables.find(key);
    return found != k.tables.end() ? found->second.lock() : nullptr;
}

std::shared_ptr<const void> SharedTables::keep(const std::string &key, std::shared_ptr<const void> table) {
    Kept &k = kept();
    std::lock_guard<std::mutex> lock(k.mutex);
    // Tables no reader holds any more (their revisions are gone) leave the map: it holds a few keys at a time.
    for (auto entry = k.tables.begin(); entry != k.tables.end();) {
        entry = entry->second.expired() ? k.tables.erase(entry) : std::next(entry);
    }
    auto &weak = k.tables[key];
    if (auto existing = weak.lock()) return existing;
    weak = table;
    // A few names per index (lengths, title words, a slot or two): this many is a process's indexes and their copies.
    if (k.newest.size() >= 256) k.newest.erase(k.newest.begin());
    k.newest[name_and_path(key)] = table;
    return table;
}

std::shared_ptr<const void> SharedTables::newest(const std::string &name, const std::string &path) {
    Kept &k = kept();
    std::lock_guard<std::mutex> lock(k.mutex);
    const auto found = k.newest.find(name + '\0' + path);
    return found != k.newest.end() ? found->second : nullptr;
}

void TableMaker::schedule(const std::string &key, std::function<void()> job) {
    Maker &m = maker();
    std::lock_guard<std::mutex> lock(m.mutex);
    if (m.exiting || !m.pending.insert(key).second) return;
    m.jobs.emplace_back(key, std::move(job));
    if (!m.started) {
        try {
            std::thread([&m] { m.run(); }).detach();
        } catch (...) {
            // No thread (the process is out of them): no table at this revision; the next one asks again.
            m.jobs.pop_back();
            m.pending.erase(key);
            return;
        }
        m.started = true;
        std::atexit(stop_maker);
    }
    m.changed.notify_all();
}

void TableMaker::wait() {
    Maker &m = maker();
    std::unique_lock<std::mutex> lock(m.mutex);
    m.changed.wait(lock, [&m] { return m.exiting || (m.jobs.empty() && !m.running); });
}

// ---- TitleWords ----

std::optional<Xapian::Document> document_if_any(const Xapian::Database &database, Xapian::docid did) {
    try {
        return database.get_document(did);
    } catch (const Xapian::DocNotFoundError &) {
        return std::nullopt;
    }
}

uint16_t TitleWords::kept(const std::string &value) {
    if (value.empty()) return 0;
    const double words = Xapian::sortable_unserialise(value);
    // Exactly what the value says, or `unknown` (read from the stream again) for anything a table cannot hold.
    return words >= 0 && words < unknown && words == static_cast<double>(static_cast<uint16_t>(words))
               ? static_cast<uint16_t>(words)
               : unknown;
}

TitleWords::TitleWords(const Xapian::Database &database, Xapian::valueno slot)
    : revision_(database.get_revision()), uuid_(database.get_uuid()) {
    counts_.assign(static_cast<size_t>(database.get_lastdocid()) + 1, 0);
    const auto end = database.valuestream_end(slot);
    for (auto value = database.valuestream_begin(slot); value != end; ++value) {
        const Xapian::docid did = value.get_docid();
        if (did < counts_.size()) counts_[did] = kept(*value);
    }
}

TitleWords::TitleWords(const TitleWords &previous, const Xapian::Database &database, Xapian::valueno slot,
                       const std::vector<Xapian::docid> &changed)
    : revision_(database.get_revision()), uuid_(database.get_uuid()), counts_(previous.counts_) {
    counts_.resize(static_cast<size_t>(database.get_lastdocid()) + 1, 0);
    for (const Xapian::docid did : changed) {
        if (did >= counts_.size()) continue;
        const auto document = document_if_any(database, did);
        counts_[did] = document ? kept(document->get_value(slot)) : 0;
    }
}

DocLengths::DocLengths(const Xapian::Database &database)
    : revision_(database.get_revision()), uuid_(database.get_uuid()) {
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

DocLengths::DocLengths(const DocLengths &previous, const Xapian::Database &database,
                       const std::vector<Xapian::docid> &changed)
    : revision_(database.get_revision()), uuid_(database.get_uuid()), lengths_(previous.lengths_) {
    lengths_.resize(static_cast<size_t>(database.get_lastdocid()) + 1, unknown);
    for (const Xapian::docid did : changed) {
        if (did >= lengths_.size()) continue;
        Xapian::termcount length = unknown;
        try {
            length = database.get_doclength(did);
        } catch (const Xapian::DocNotFoundError &) {
            // deleted: unknown, as the whole table leaves a docid no document has
        }
        lengths_[did] = length < unknown ? static_cast<uint32_t>(length) : unknown;
    }
}

}  // namespace cxapian

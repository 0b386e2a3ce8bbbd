// fixture.cpp — the engine tests' index, queries and helpers (fixture.h).

#include "fixture.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

namespace engine_tests {

TempIndex::TempIndex(std::shared_ptr<const cxapian::WordPairs> pairs, std::shared_ptr<const cxapian::StemTerms> stems,
                     bool packs)
    : pairs_(std::move(pairs)), stems_(std::move(stems)) {
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/engine-tests.XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot make a temporary directory");
    directory_ = pattern;
    path_ = directory_ + "/index";
    writer_ = std::make_unique<cxapian::RecordingWriter>(
        Xapian::WritableDatabase(path_, Xapian::DB_CREATE | Xapian::DB_BACKEND_GLASS));
    generator_.set_stemmer(Xapian::Stem("english"));
    generator_.set_stemming_strategy(Xapian::TermGenerator::STEM_SOME);
    if (packs) {
        writer_->set_metadata(packed_positions.key, "0");
        positions_ = std::make_unique<cxapian::PositionTerms>(packed_positions.key, true);
    }
}

TempIndex::~TempIndex() {
    writer_->database().close();
    std::error_code ignored;
    std::filesystem::remove_all(directory_, ignored);
}

Xapian::docid TempIndex::add(const Item &item) {
    return add(document(++added_, item));
}

Xapian::docid TempIndex::replace(unsigned number, const Item &item) {
    Xapian::Document made = document(number, item);
    if (positions_) cxapian::pack_positions(made, *positions_, writer_->database());
    return writer_->replace(unique_prefix + std::to_string(number), made);
}

void TempIndex::remove(unsigned number) {
    writer_->remove(unique_prefix + std::to_string(number));
}

Xapian::Document TempIndex::document(unsigned number, const Item &item) {
    Xapian::Document document;
    document.add_boolean_term(unique_prefix + std::to_string(number));
    document.add_term("XKitem", 1);  // the kind term, whose wdf keeps a title-only document's length above 0
    if (!item.status.empty()) {
        document.add_boolean_term(status_prefix + item.status);
        document.add_value(status_slot, item.status);
    }
    generator_.set_document(document);
    generator_.index_text(item.title, 0, title_prefix);
    generator_.increase_termpos();
    generator_.index_text(item.detail);
    if (stems_) stems_->prune(document, "XKitem");
    if (pairs_) pairs_->add_to(document);
    document.add_value(modified_slot, Xapian::sortable_serialise(item.modified));
    std::vector<std::string> words;
    for (Xapian::TermIterator term = document.termlist_begin(); term != document.termlist_end(); ++term) {
        const std::string &name = *term;
        if (name.size() > 1 && name[0] == 'S' && name[1] >= 'a' && name[1] <= 'z') words.push_back(name);
    }
    document.add_value(title_words_slot, Xapian::sortable_serialise(double(words.size())));
    return document;
}

Xapian::docid TempIndex::add(Xapian::Document document) {
    if (positions_) cxapian::pack_positions(document, *positions_, writer_->database());
    return writer_->add(document);
}

std::unique_ptr<cxapian::Reader> TempIndex::reader() const {
    return std::unique_ptr<cxapian::Reader>(new cxapian::Reader{Xapian::Database(path_), path_});
}

Xapian::Query parse(const std::string &text) {
    Xapian::QueryParser parser;
    parser.set_stemmer(Xapian::Stem("english"));
    parser.set_stemming_strategy(Xapian::QueryParser::STEM_SOME);
    parser.set_default_op(Xapian::Query::OP_AND);
    parser.add_prefix("", "");
    parser.add_prefix("", title_prefix);
    parser.add_boolean_prefix("status", status_prefix);
    return parser.parse_query(text, Xapian::QueryParser::FLAG_DEFAULT | Xapian::QueryParser::FLAG_PURE_NOT);
}

std::vector<Item> corpus(unsigned count) {
    static const std::vector<std::string> words = {
        "the",    "leak",   "memory", "crash",  "server", "client", "timeout", "error",  "config", "disk",
        "write",  "read",   "node",   "block",  "replica", "lease", "quota",   "token",  "socket", "buffer",
        "thread", "lock",   "retry",  "cache",  "index",  "query",  "parser",  "schema", "upgrade", "zookeeper"};
    uint64_t state = 42;
    auto next = [&state](uint64_t bound) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return (state >> 33) % bound;
    };
    // Zipf-like: the word at rank r is picked about 1/(r+1) as often as the first.
    auto word = [&]() {
        for (;;) {
            const uint64_t rank = next(words.size());
            if (next(rank + 1) == 0) return words[rank];
        }
    };
    static const std::vector<std::string> statuses = {"open", "completed", "closed"};
    std::vector<Item> items;
    for (unsigned i = 0; i < count; ++i) {
        Item item;
        for (uint64_t n = 2 + next(4); n > 0; --n) item.title += (item.title.empty() ? "" : " ") + word();
        for (uint64_t n = 5 + next(30); n > 0; --n) item.detail += (item.detail.empty() ? "" : " ") + word();
        item.modified = double(next(40));  // many ties
        item.status = statuses[i % statuses.size()];
        items.push_back(item);
    }
    return items;
}

cxapian::MatchOptions ranked_options() {
    cxapian::MatchOptions options;
    options.max_items = 20;
    options.check_at_least = 100;
    options.ranking = cxapian::RankingParameters{1.2, 0.75, 0.75, title_prefix, 2.0, title_words_slot};
    return options;
}

std::vector<std::pair<Xapian::docid, double>> hits(const cxapian::MatchResult &result) {
    std::vector<std::pair<Xapian::docid, double>> list;
    for (uint32_t i = 0; i < result.page_size; ++i) list.push_back(result.hit(i));
    return list;
}

std::vector<Xapian::docid> docids(const cxapian::MatchResult &result) {
    std::vector<Xapian::docid> list;
    for (const auto &hit : hits(result)) list.push_back(hit.first);
    return list;
}

std::unique_ptr<cxapian::MatchResult> run(cxapian::Reader &reader, const Xapian::Query &query,
                                          const cxapian::MatchOptions &options) {
    auto result = std::make_unique<cxapian::MatchResult>();
    cxapian::match(reader, query, {}, options, *result);
    return result;
}

std::vector<Xapian::docid> matching(const Xapian::Database &database, const Xapian::Query &query) {
    Xapian::Enquire enquire(database);
    enquire.set_query(query);
    enquire.set_weighting_scheme(Xapian::BoolWeight());
    enquire.set_docid_order(Xapian::Enquire::ASCENDING);
    const Xapian::MSet found = enquire.get_mset(0, database.get_doccount() + 1);
    std::vector<Xapian::docid> list;
    for (auto hit = found.begin(); hit != found.end(); ++hit) list.push_back(*hit);
    return list;
}

}  // namespace engine_tests

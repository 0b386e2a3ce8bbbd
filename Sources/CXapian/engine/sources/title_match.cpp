// title_match.cpp — TitleWordReader, TitleMatchSource and weigh_title_match. Called only from inside the C API's
// guarded entry points, so exceptions thrown here are caught there.

#include "title_match.h"
#include "../stem_terms.h"

#include <cmath>
#include <map>

namespace cxapian {

TitleWordReader::TitleWordReader(const Xapian::Database &database, Xapian::valueno slot, const TitleWords *table)
    : database_(database), slot_(slot), table_(table_of(table, database)) {}

double TitleWordReader::words(Xapian::docid did) {
    const uint16_t count = table_ != nullptr ? table_->count(did) : TitleWords::unknown;
    if (count != TitleWords::unknown) return static_cast<double>(count);
    if (!opened_) {
        // Opened on the first count the table lacks: with a table, most searches need none (the look-up of the
        // stream's first chunk was a B-tree descent of every search's).
        stream_ = database_.valuestream_begin(slot_);
        end_ = database_.valuestream_end(slot_);
        opened_ = true;
    }
    if (stream_ != end_ && stream_.get_docid() < did) stream_.skip_to(did);
    if (stream_ != end_ && stream_.get_docid() == did) return Xapian::sortable_unserialise(*stream_);
    return 0;
}

// ---- TitleMatchSource ----

TitleMatchSource::TitleMatchSource(std::vector<std::vector<std::string>> terms, std::vector<double> idfs,
                                   Xapian::valueno slot, double weight, std::shared_ptr<const TitleWords> table)
    : terms_(std::move(terms)), idfs_(std::move(idfs)), slot_(slot), weight_(weight), table_(std::move(table)) {
    for (double idf : idfs_) total_idf_ += idf;
    for (size_t word = 0; word < terms_.size(); ++word) word_of_.insert(word_of_.end(), terms_[word].size(), word);
}

TitleMatchSource *TitleMatchSource::clone() const {
    return with_shared(new TitleMatchSource(terms_, idfs_, slot_, weight_, table_));
}

void TitleMatchSource::init(const Xapian::Database &database) {
    std::vector<std::string> terms;
    for (const auto &word : terms_) terms.insert(terms.end(), word.begin(), word.end());
    open(database, terms);
    title_words_ = TitleWordReader(database, slot_, table_.get());
    set_maxweight(weight_);
}

double TitleMatchSource::get_weight() const {
    const Xapian::docid current = get_docid();
    size_t matched = 0;
    double matched_idf = 0;
    size_t last = SIZE_MAX;  // a word's terms are walked one after another: it counts once
    for_each_match([&](size_t term) {
        const size_t word = word_of_[term];
        if (word == last) return;
        last = word;
        ++matched;
        matched_idf += word < idfs_.size() ? idfs_[word] : 1;
    });
    return similarity(matched, matched_idf, title_words_.words(current), terms_.size(), total_idf_, weight_);
}

double TitleMatchSource::similarity(size_t matched, double matched_idf, double title_words, size_t count,
                                    double total_idf, double weight) {
    // Weighted Jaccard: the idf of the words both have over the idf of the words either has, a title word the
    // query lacks counting as a query word of average idf.
    double average = count == 0 ? 0 : total_idf / static_cast<double>(count);
    double unmatched_title = std::max(0.0, title_words - static_cast<double>(matched));
    double either = total_idf + unmatched_title * average;
    return either > 0 ? weight * matched_idf / either : 0;
}

std::vector<double> weigh_title_match(const Xapian::Database &database,
                                      const std::vector<std::vector<std::string>> &terms,
                                      const std::vector<double> &idfs, const FieldedRanking &ranking,
                                      const std::vector<Xapian::docid> &documents) {
    std::vector<double> weights(documents.size(), 0.0);
    if (ranking.title_match <= 0 || terms.empty()) return weights;
    std::vector<size_t> matched(documents.size(), 0);
    std::vector<double> matched_idf(documents.size(), 0.0);
    double total_idf = 0;
    for (double idf : idfs) total_idf += idf;
    std::vector<bool> holds(documents.size());
    for (size_t i = 0; i < terms.size(); ++i) {
        std::fill(holds.begin(), holds.end(), false);
        for (const auto &term : terms[i]) {
            auto posting = database.postlist_begin(term);
            const auto end = database.postlist_end(term);
            for (size_t d = 0; d < documents.size() && posting != end; ++d) {
                posting.skip_to(documents[d]);
                if (posting != end && *posting == documents[d]) holds[d] = true;
            }
        }
        for (size_t d = 0; d < documents.size(); ++d) {
            if (!holds[d]) continue;
            ++matched[d];
            matched_idf[d] += i < idfs.size() ? idfs[i] : 1;
        }
    }
    TitleWordReader title_words(database, ranking.title_words_slot, ranking.title_words.get());
    for (size_t d = 0; d < documents.size(); ++d) {
        if (matched[d] == 0) continue;  // the source matches titles holding a query word only
        weights[d] = TitleMatchSource::similarity(matched[d], matched_idf[d], title_words.words(documents[d]),
                                                  terms.size(), total_idf, ranking.title_match);
    }
    return weights;
}

std::string TitleMatchSource::get_description() const { return "TitleMatchSource"; }

}  // namespace cxapian

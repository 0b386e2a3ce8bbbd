// fielded_ranking.cpp — see fielded_ranking.h. Called only from inside cxapian.cpp's guarded entry points, so
// exceptions thrown here are caught there.

#include "fielded_ranking.h"
#include "query_parts.h"
#include "word_pairs.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace cxapian {

// ---- FieldedBM25Weight ----

FieldedBM25Weight::FieldedBM25Weight(double k1, double b) : k1_(k1), b_(b) {
    need_stat(COLLECTION_SIZE);
    need_stat(AVERAGE_LENGTH);
    need_stat(TERMFREQ);
    need_stat(WDF);
    need_stat(WDF_MAX);
    need_stat(DOC_LENGTH);
    need_stat(DOC_LENGTH_MIN);
}

FieldedBM25Weight *FieldedBM25Weight::clone() const { return new FieldedBM25Weight(k1_, b_); }

double FieldedBM25Weight::idf(double termfreq, double collection_size) {
    double ratio = (collection_size - termfreq + 0.5) / (termfreq + 0.5);
    // Small or negative for words in half the documents or more: keep it positive and ordered, as Xapian does.
    if (ratio < 2) ratio = ratio * 0.5 + 1;
    return std::log(ratio);
}

void FieldedBM25Weight::init(double factor) {
    termweight_ = idf(get_termfreq(), get_collection_size()) * factor;
    average_length_ = std::max(1.0, static_cast<double>(get_average_length()));
}

std::string FieldedBM25Weight::name() const { return "cxapian::FieldedBM25Weight"; }

double FieldedBM25Weight::saturation(double tf, double length, double average_length, double k1, double b) {
    if (tf == 0) return 0;
    double normalised = 1 - b + b * (length / average_length);
    return tf * (k1 + 1) / (tf + k1 * normalised);
}

double FieldedBM25Weight::get_sumpart(Xapian::termcount wdf, Xapian::termcount doclen, Xapian::termcount) const {
    return termweight_ * saturation(wdf, doclen, average_length_, k1_, b_);
}

double FieldedBM25Weight::get_maxpart() const {
    return termweight_ * saturation(get_wdf_upper_bound(), get_doclength_lower_bound(), average_length_, k1_, b_);
}

double FieldedBM25Weight::get_sumextra(Xapian::termcount, Xapian::termcount) const { return 0; }

double FieldedBM25Weight::get_maxextra() const { return 0; }

// ---- TermListsSource ----

void TermListsSource::open(const Xapian::Database &database, const std::vector<std::string> &terms, bool every) {
    database_ = database;
    lists_.clear();
    every_ = every;
    current_ = 0;
    started_ = false;
    termfreq_min_ = 0;
    termfreq_max_ = every ? database_.get_doccount() : 0;
    Xapian::doccount sum = 0;
    for (size_t i = 0; i < terms.size(); ++i) {
        Xapian::doccount frequency = database_.get_termfreq(terms[i]);
        if (frequency == 0) {
            if (!every) continue;
            lists_.clear();  // no document holds them all
            termfreq_max_ = 0;
            return;
        }
        List list{database_.postlist_begin(terms[i]), database_.postlist_end(terms[i]), i, 0};
        list.docid = list.at == list.end ? 0 : *list.at;
        lists_.push_back(std::move(list));
        if (every) {
            termfreq_max_ = std::min(termfreq_max_, frequency);
        } else {
            termfreq_min_ = std::max(termfreq_min_, frequency);
            sum += frequency;
        }
    }
    if (!every) termfreq_max_ = std::min(sum, database_.get_doccount());
}

void TermListsSource::settle(Xapian::docid did) {
    started_ = true;
    current_ = 0;
    if (!every_) {
        for (auto &list : lists_) {
            if (list.docid != 0 && list.docid < did) list.move_to(did);
            if (list.docid == 0) continue;
            if (current_ == 0 || list.docid < current_) current_ = list.docid;
        }
        return;
    }
    if (lists_.empty()) return;
    for (;;) {
        Xapian::docid highest = did;
        bool together = true;
        for (auto &list : lists_) {
            if (list.docid == 0) return;  // a term has no more documents: none holds them all
            if (list.docid < highest) list.move_to(highest);
            if (list.docid == 0) return;
            if (list.docid != highest) together = false;
            highest = std::max(highest, list.docid);
        }
        if (together) {
            current_ = highest;
            return;
        }
        did = highest;
    }
}

void TermListsSource::next(double) {
    if (started_ && current_ == 0) return;  // past the last
    settle(started_ ? current_ + 1 : 1);
}

void TermListsSource::skip_to(Xapian::docid did, double) {
    if (started_ && (current_ == 0 || did <= current_)) return;
    settle(did);
}

// ---- TitleBonusSource ----

TitleBonusSource::TitleBonusSource(std::vector<std::string> terms, double weight)
    : terms_(std::move(terms)), weight_(weight) {}

TitleBonusSource *TitleBonusSource::clone() const { return new TitleBonusSource(terms_, weight_); }

void TitleBonusSource::init(const Xapian::Database &database) {
    open(database, terms_);
    set_maxweight(weight_);
}

double TitleBonusSource::get_weight() const { return weight_; }

std::string TitleBonusSource::get_description() const {
    std::string description = "TitleBonusSource(";
    for (size_t i = 0; i < terms_.size(); ++i) description += (i ? " " : "") + terms_[i];
    return description + ")";
}

// ---- WordSource ----

WordSource::WordSource(std::vector<std::string> detail, std::vector<std::string> title, double idf, double k1, double b,
                       double title_bonus, double average_length, std::shared_ptr<const DocLengths> lengths,
                       bool title_counts)
    : lengths_(std::move(lengths)), detail_(std::move(detail)), title_(std::move(title)), idf_(idf), k1_(k1), b_(b),
      title_bonus_(title_bonus), average_length_(std::max(1.0, average_length)), title_counts_(title_counts) {}

WordSource *WordSource::clone() const {
    return new WordSource(detail_, title_, idf_, k1_, b_, title_bonus_, average_length_, lengths_, title_counts_);
}

void WordSource::init(const Xapian::Database &database) {
    // `database` is one part of a multi-database: the average length stays the whole's, given when made.
    std::vector<std::string> terms = detail_;
    terms.insert(terms.end(), title_.begin(), title_.end());
    open(database, terms);
    lengths_here_ = table_of(lengths_.get(), database);
    // BM25 tends to idf × (k1 + 1) as tf grows.
    set_maxweight(idf_ * (k1_ + 1) + title_bonus_);
}

double WordSource::get_weight() const {
    double in_detail = 0;
    const uint32_t known = lengths_here_ != nullptr ? lengths_here_->length(get_docid()) : DocLengths::unknown;
    double length = known != DocLengths::unknown ? static_cast<double>(known) : -1;
    bool in_title = false;
    for_each_posting([&](size_t term, const Xapian::PostingIterator &posting) {
        if (term < detail_.size()) {
            in_detail = std::max(in_detail, static_cast<double>(posting.get_wdf()));
        } else {
            in_title = true;
        }
        if (length < 0) length = posting.get_doclength();
    });
    const double tf = in_detail + (in_title && title_counts_ ? 1 : 0);
    if (tf == 0) return 0;
    return idf_ * FieldedBM25Weight::saturation(tf, length, average_length_, k1_, b_) + (in_title ? title_bonus_ : 0);
}

std::string WordSource::get_description() const {
    std::string description = "WordSource(";
    for (const auto &term : detail_) description += term + " ";
    for (const auto &term : title_) description += term + " ";
    description.back() = ')';
    return description;
}

// ---- SharedTables ----

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
    return new TitleMatchSource(terms_, idfs_, slot_, weight_, table_);
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

// ---- BonusPhrase and PhraseBonusSource ----

void BonusPhrase::weigh(const Xapian::Database &database, const FieldedRanking &ranking) {
    const double collection = std::max<Xapian::doccount>(1, database.get_doccount());
    idfs.clear();
    title_weight = 0;
    for (const auto &term : terms) {
        const Xapian::doccount frequency =
            ranking.frequencies ? ranking.frequencies->of(term) : database.get_termfreq(term);
        idfs.push_back(FieldedBM25Weight::idf(frequency, collection));
        if (title) title_weight += (ranking.k1 + 1 + ranking.title_bonus) * idfs.back();
    }
}

PhraseBonusSource::PhraseBonusSource(BonusPhrase phrase, const FieldedRanking &ranking, double average_length)
    : phrase_(std::move(phrase)), ranking_(ranking), average_length_(std::max(1.0, average_length)) {
    phrase_.idfs.resize(phrase_.terms.size(), 0.0);
}

PhraseBonusSource *PhraseBonusSource::clone() const {
    return new PhraseBonusSource(phrase_, ranking_, average_length_);
}

void PhraseBonusSource::init(const Xapian::Database &database) {
    // `database` is one part of a multi-database: the idfs and average length stay the whole's, given when made.
    open(database, phrase_.terms, true);
    double most = phrase_.title_weight;
    if (!phrase_.title) {
        most = 0;
        for (double idf : phrase_.idfs) most += idf * (ranking_.k1 + 1);  // BM25 tends to idf × (k1 + 1) as tf grows
    }
    set_maxweight(most);
}

std::vector<Xapian::termpos> PhraseBonusSource::positions(const Xapian::Database &database, Xapian::docid did,
                                                          const std::string &term) {
    std::vector<Xapian::termpos> list;
    for (auto at = database.positionlist_begin(did, term); at != database.positionlist_end(did, term); ++at) {
        list.push_back(*at);
    }
    return list;
}

bool PhraseBonusSource::holds_phrase(const std::vector<std::vector<Xapian::termpos>> &lists) {
    if (lists.empty()) return false;
    for (Xapian::termpos first : lists[0]) {
        bool all = true;
        for (size_t i = 1; i < lists.size() && all; ++i) {
            all = std::binary_search(lists[i].begin(), lists[i].end(), first + static_cast<Xapian::termpos>(i));
        }
        if (all) return true;
    }
    return false;
}

double PhraseBonusSource::get_weight() const {
    const Xapian::docid current = get_docid();
    std::vector<std::vector<Xapian::termpos>> lists;
    for (const auto &term : phrase_.terms) {
        lists.push_back(positions(database(), current, term));
        if (lists.back().empty()) return 0;
    }
    if (!holds_phrase(lists)) return 0;
    if (phrase_.title) return phrase_.title_weight;
    double weight = 0;
    for_each_posting([&](size_t term, const Xapian::PostingIterator &posting) {
        weight += phrase_.detail_weight(term, posting.get_wdf(), posting.get_doclength(), average_length_, ranking_);
    });
    return weight;
}

std::string PhraseBonusSource::get_description() const {
    std::string description = "PhraseBonusSource(";
    for (size_t i = 0; i < phrase_.terms.size(); ++i) description += (i ? " " : "") + phrase_.terms[i];
    return description + ")";
}

// ---- the query rewrite ----

namespace {

bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }

struct Classifier {
    std::string prefix;

    /// A title term: prefix + word, or "Z" + prefix + stem.
    bool is_title(const std::string &term) const {
        if (term.compare(0, prefix.size(), prefix) == 0) {
            return term.size() > prefix.size() && !is_upper(term[prefix.size()]);
        }
        return term.size() > prefix.size() + 1 && term[0] == 'Z' && term.compare(1, prefix.size(), prefix) == 0 &&
               !is_upper(term[prefix.size() + 1]);
    }

    /// A detail term: a word (lowercase, a digit, or non-ASCII first), or "Z" + its stem.
    bool is_detail(const std::string &term) const {
        if (term.empty()) return false;
        if (term[0] == 'Z') return term.size() > 1 && !is_upper(term[1]);
        return !is_upper(term[0]);
    }

    /// The title term for a detail term.
    std::string twin(const std::string &detail) const {
        if (detail[0] == 'Z') return "Z" + prefix + detail.substr(1);
        return prefix + detail;
    }
};

bool leaf_term(const Xapian::Query &query, std::string &term) {
    if (query.get_type() != Xapian::Query::LEAF_TERM) return false;
    auto it = query.get_terms_begin();
    if (it == query.get_terms_end()) return false;
    term = *it;
    return true;
}

/// `query` as exact phrases of leaf terms all of one field, into `phrases`; false for any other form.
bool bonus_phrases(const Xapian::Query &query, const Classifier &classifier, std::vector<BonusPhrase> &phrases) {
    using Q = Xapian::Query;
    if (query.get_type() == Q::OP_OR) {
        for (size_t i = 0, count = query.get_num_subqueries(); i < count; ++i) {
            if (!bonus_phrases(query.get_subquery(i), classifier, phrases)) return false;
        }
        return true;
    }
    std::vector<std::string> terms;
    if (!phrase_leaves(query, terms) || !is_exact_phrase(query)) return false;
    BonusPhrase phrase;
    for (size_t i = 0; i < terms.size(); ++i) {
        bool title = classifier.is_title(terms[i]);
        if (!title && !classifier.is_detail(terms[i])) return false;
        if (i == 0) phrase.title = title;
        if (title != phrase.title) return false;
    }
    phrase.terms = std::move(terms);
    phrases.push_back(std::move(phrase));
    return true;
}

class Rewriter {
  public:
    Rewriter(const Xapian::Database &database, const FieldedRanking &ranking)
        : database_(database), ranking_(ranking), classifier_{ranking.title_prefix},
          documents_(std::max<Xapian::doccount>(1, database.get_doccount())),
          stems_(ranking.stems ? ranking.stems : std::make_shared<const StemTerms>("", ranking.title_prefix)),
          frequencies_(ranking.frequencies ? ranking.frequencies : std::make_shared<TermFrequencies>(database)) {}

    /// The title terms of every word met (a class of terms each), in order, once each: the query's words for the
    /// title similarity.
    const std::vector<std::vector<std::string>> &title_terms() const { return title_terms_; }
    /// The idf of each of ``title_terms()``.
    const std::vector<double> &title_idfs() const { return title_idfs_; }

    /// Counts the word whose title terms are `title` (at `word_idf`) among the query's words for the title
    /// similarity, once.
    void note(const std::vector<std::string> &title, double word_idf) {
        if (!noting_) return;
        if (std::find(title_terms_.begin(), title_terms_.end(), title) == title_terms_.end()) {
            title_terms_.push_back(title);
            title_idfs_.push_back(word_idf);
        }
    }

    /// The terms a term stands for (StemTerms::Class).
    StemTerms::Class class_of(const std::string &term) const { return stems_->class_of(term); }

    Xapian::Query rewrite(const Xapian::Query &query) {
        using Q = Xapian::Query;
        std::string term;
        switch (query.get_type()) {
            case Q::LEAF_TERM: {
                leaf_term(query, term);
                const StemTerms::Class terms = class_of(term);
                // A title word alone (`title:word`): the bonus, with the title's own idf.
                if (classifier_.is_title(term)) {
                    double term_idf = idf(StemTerms::frequency(*frequencies_, terms));
                    note(terms.terms, term_idf);
                    return bonus(terms.terms, term_idf);
                }
                // A detail stem alone (`detail:word`) whose documents are those of two terms: BM25 over both, as the
                // stem term alone would weigh (its wdf, the whole of its documents).
                if (terms.terms.size() > 1) {
                    double term_idf = idf(StemTerms::frequency(*frequencies_, terms));
                    auto *source = new WordSource(terms.terms, {}, term_idf, ranking_.k1, ranking_.b, 0,
                                                  database_.get_avlength(), ranking_.doc_lengths, false);
                    return Xapian::Query(source->release());
                }
                return query;
            }
            case Q::OP_OR:
                return rewrite_or(query);
            case Q::OP_SYNONYM: {
                // A wildcard or a partial word expanded in the title (and maybe in the detail too, as a partial
                // word of the default field is): the title's part becomes the bonus for any of its terms, the rest
                // stays one synonym, weighed by BM25.
                std::vector<std::string> terms;
                std::vector<Q> others;
                for (size_t i = 0, count = query.get_num_subqueries(); i < count; ++i) {
                    Q part = query.get_subquery(i);
                    std::vector<std::string> expansion;
                    if (leaf_term(part, term) && classifier_.is_title(term)) {
                        // A stem's class: the bonus reads its documents from all of its terms.
                        const auto stem_terms = class_of(term).terms;
                        terms.insert(terms.end(), stem_terms.begin(), stem_terms.end());
                    } else if (part.get_type() == Q::OP_WILDCARD && title_expansion(part, expansion)) {
                        terms.insert(terms.end(), expansion.begin(), expansion.end());
                    } else {
                        others.push_back(part);
                    }
                }
                if (terms.empty()) return stems_->expand(query);
                Q title_part = any_bonus(std::move(terms));
                if (others.empty()) return title_part;
                Q rest = others.size() == 1 ? others[0] : Q(Q::OP_SYNONYM, others.begin(), others.end());
                return Q(Q::OP_OR, stems_->expand(rest), title_part);
            }
            case Q::OP_WILDCARD: {
                // A title wildcard (`title:fix*`, a partial word): Xapian expands it at match time and title terms
                // carry no wdf, so it would weigh nothing; expanded here, it gets the bonus as a synonym would.
                std::vector<std::string> terms;
                if (!title_expansion(query, terms)) return query;
                return any_bonus(std::move(terms));
            }
            case Q::OP_PHRASE:
            case Q::OP_NEAR: {
                // Words together in the title: matched as the phrase, weighted by their title bonuses.
                std::vector<std::string> terms;
                if (all_title_leaves(query, terms)) return title_words_together(query, terms);
                // Elsewhere: matched as the phrase, weighed as its words together, which is what a phrase weighs
                // (the sum of its parts). Xapian 1.4 weighs a phrase's candidate before checking its positions when
                // anything beside it can add weight (the title similarity, a title phrase's bonus): a read of the
                // candidate's length from the index each, as many block reads as the positions' for a phrase of a
                // rare and a common word. A weightless phrase is only checked; its words are weighed for its matches.
                std::vector<Q> parts;
                for (size_t i = 0, count = query.get_num_subqueries(); i < count; ++i) {
                    parts.push_back(query.get_subquery(i));
                }
                return Q(Q::OP_AND_MAYBE, Q(Q::OP_SCALE_WEIGHT, query, 0.0), Q(Q::OP_AND, parts.begin(), parts.end()));
            }
            case Q::OP_MAX: {
                // A compound word (group_compounds): the word, then its parts. The parts are the same word, so only
                // the word counts in the title similarity.
                std::vector<Q> parts;
                for (size_t i = 0, count = query.get_num_subqueries(); i < count; ++i) {
                    bool noting = noting_;
                    if (i > 0) noting_ = false;
                    Q part = rewrite(query.get_subquery(i));
                    // Xapian flattens an OR under a MAX into the MAX (each part would count alone); a weight scaled
                    // by 1 keeps the parts' sum one weight.
                    if (part.get_type() == Q::OP_OR || part.get_type() == Q::OP_MAX) {
                        part = Q(Q::OP_SCALE_WEIGHT, part, 1.0);
                    }
                    parts.push_back(part);
                    noting_ = noting;
                }
                return Q(Q::OP_MAX, parts.begin(), parts.end());
            }
            case Q::OP_AND: {
                // Title words that are each their own term (a phrase of two common words matched by their pair, see
                // WordPairs): every match holds them all, so their bonuses add up to one fixed weight, as a phrase's.
                std::vector<std::string> terms;
                if (all_title_leaves(query, terms) &&
                    std::all_of(terms.begin(), terms.end(),
                                [this](const std::string &title) { return class_of(title).terms.size() == 1; })) {
                    return title_words_together(query, terms);
                }
                return rebuild(query, 0);
            }
            case Q::OP_AND_MAYBE:
            case Q::OP_XOR:
                return rebuild(query, 0);
            case Q::OP_AND_NOT:
            case Q::OP_FILTER:
                // Only the first sub-query is weighted.
                return rebuild(query, 1);
            default:
                return stems_->expand(query);
        }
    }

  private:
    /// `query` with its sub-queries rewritten (all of them, or only the first when `only_first`).
    /// An OR: each word's pair of leaves (detail term, title twin) becomes one word; Xapian flattens a pair into an
    /// enclosing OR, so the two may sit among other sub-queries.
    Xapian::Query rewrite_or(const Xapian::Query &query) {
        size_t count = query.get_num_subqueries();
        std::vector<std::string> terms(count);
        std::vector<bool> leaf(count), used(count);
        for (size_t i = 0; i < count; ++i) leaf[i] = leaf_term(query.get_subquery(i), terms[i]);
        std::vector<Xapian::Query> parts;
        for (size_t i = 0; i < count; ++i) {
            if (used[i]) continue;
            if (leaf[i] && classifier_.is_detail(terms[i])) {
                std::string title = classifier_.twin(terms[i]);
                for (size_t j = 0; j < count; ++j) {
                    if (j != i && !used[j] && leaf[j] && terms[j] == title) {
                        used[i] = used[j] = true;
                        parts.push_back(word(terms[i], title));
                        break;
                    }
                }
                if (used[i]) continue;
            }
            used[i] = true;
            parts.push_back(rewrite(query.get_subquery(i)));
        }
        return parts.size() == 1 ? parts[0] : Xapian::Query(Xapian::Query::OP_OR, parts.begin(), parts.end());
    }

    Xapian::Query rebuild(const Xapian::Query &query, int only_first) {
        std::vector<Xapian::Query> parts;
        size_t count = query.get_num_subqueries();
        parts.reserve(count);
        for (size_t i = 0; i < count; ++i) {
            Xapian::Query part = query.get_subquery(i);
            parts.push_back(only_first && i > 0 ? stems_->expand(part) : rewrite(part));
        }
        return Xapian::Query(query.get_type(), parts.begin(), parts.end());
    }

    /// One word of the default field: a WordSource over its detail term and its title twin, at the word's idf over
    /// both fields.
    Xapian::Query word(const std::string &detail, const std::string &title) {
        const StemTerms::Class details = class_of(detail);
        const StemTerms::Class titles = class_of(title);
        double in_detail = StemTerms::frequency(*frequencies_, details);
        double in_title = StemTerms::frequency(*frequencies_, titles);
        // Documents holding the word in either field, if the two were independent.
        double either = in_detail + in_title - in_detail * in_title / documents_;
        double word_idf = idf(either);
        note(titles.terms, word_idf);
        if (either == 0) return bonus(titles.terms, word_idf);  // matches nothing, as the pair did
        auto *source =
            new WordSource(details.terms, titles.terms, word_idf, ranking_.k1, ranking_.b,
                           ranking_.title_bonus * word_idf, database_.get_avlength(), ranking_.doc_lengths);
        // The source alone: the rewritten query names no terms, so snippets highlight from the parsed query
        // (cxapian_mset_snippet). Keeping the detail term here, weightless, cost a walk of its posting list per
        // word, a large part of a two-word search.
        return Xapian::Query(source->release());
    }

    /// A title match where the query asks for the title alone (`title:word`, a phrase or wildcard in titles): the
    /// word counts as a saturated text match, (k1 + 1) idf, plus the title bonus, as a title word weighs at most in
    /// a WordSource. So a phrase found in a title ranks above the same phrase in a detail.
    Xapian::Query bonus(std::vector<std::string> terms, double term_idf) const {
        auto *source = new TitleBonusSource(std::move(terms), bonus_weight(term_idf));
        return Xapian::Query(source->release());
    }

    /// What a title word of this idf weighs where the query asks for the title alone (bonus()).
    double bonus_weight(double term_idf) const { return (ranking_.k1 + 1 + ranking_.title_bonus) * term_idf; }

    /// The bonus for a title holding any of `terms` (a wildcard's or a partial word's expansion), at the idf of
    /// the most frequent of them.
    Xapian::Query any_bonus(std::vector<std::string> terms) const {
        Xapian::doccount frequency = 0;
        for (const auto &title : terms) {
            // A stem term's documents are its class's (which hold those of its word's term, also among `terms`).
            frequency = std::max(frequency, StemTerms::frequency(*frequencies_, class_of(title)));
        }
        return bonus(std::move(terms), idf(frequency));
    }

    double idf(double frequency) const { return FieldedBM25Weight::idf(frequency, documents_); }

    /// The title terms a title wildcard stands for, if there are at most ``kMaxWildcardTerms``. Xapian's public
    /// API does not expose a wildcard's pattern, so it is read from the description Xapian writes for it
    /// (`Query(WILDCARD SYNONYM Sfix)`); any other shape, or an escaped byte in it, leaves the wildcard as it is.
    bool title_expansion(const Xapian::Query &query, std::vector<std::string> &terms) const {
        const std::string description = query.get_description();
        const std::string head = "Query(WILDCARD ";
        if (description.compare(0, head.size(), head) != 0 || description.back() != ')') return false;
        std::string rest = description.substr(head.size(), description.size() - head.size() - 1);
        size_t space = rest.find(' ');
        if (space == std::string::npos) return false;
        std::string pattern = rest.substr(space + 1);
        if (pattern.empty() || pattern.find('\\') != std::string::npos || !classifier_.is_title(pattern)) return false;
        for (auto term = database_.allterms_begin(pattern); term != database_.allterms_end(pattern); ++term) {
            if (terms.size() == kMaxWildcardTerms) return false;
            terms.push_back(*term);
        }
        return !terms.empty();
    }

    /// The query parser's wildcard limit (SearchQuery.maximumWildcardExpansion): past it the match itself fails.
    static constexpr size_t kMaxWildcardTerms = 1000;

    /// `query`, which matches only titles holding every one of `terms`, weighted by their title bonuses: one fixed
    /// weight (a TitleBonusSource a word, as `title:word` gets, would open each word's posting list again). Title
    /// terms weigh nothing themselves (wdf 0): `query` is weightless, so that Xapian reads no document's length to
    /// weigh it (nor, for a phrase, before checking positions, see the detail's phrases in rewrite()).
    Xapian::Query title_words_together(const Xapian::Query &query, const std::vector<std::string> &terms) {
        double weight = 0;
        for (const auto &title : terms) {
            double term_idf = idf(frequencies_->of(title));
            note({title}, term_idf);
            weight += bonus_weight(term_idf);
        }
        auto *bonuses = new ConstantSource(weight);
        return Xapian::Query(Xapian::Query::OP_AND_MAYBE, Xapian::Query(Xapian::Query::OP_SCALE_WEIGHT, query, 0.0),
                             Xapian::Query(bonuses->release()));
    }

    bool all_title_leaves(const Xapian::Query &query, std::vector<std::string> &terms) const {
        size_t count = query.get_num_subqueries();
        if (count == 0) return false;
        for (size_t i = 0; i < count; ++i) {
            std::string term;
            if (!leaf_term(query.get_subquery(i), term) || !classifier_.is_title(term)) return false;
            terms.push_back(term);
        }
        return true;
    }

    const Xapian::Database &database_;
    const FieldedRanking &ranking_;
    Classifier classifier_;
    double documents_;
    std::shared_ptr<const StemTerms> stems_;
    std::shared_ptr<TermFrequencies> frequencies_;
    std::vector<std::vector<std::string>> title_terms_;
    std::vector<double> title_idfs_;
    bool noting_ = true;  // whether the title terms met count as the query's words (not a compound's parts)
};

/// Text terms of either field; no boolean or value terms.
class TextTermDecider : public Xapian::ExpandDecider {
  public:
    explicit TextTermDecider(const Classifier &classifier) : classifier_(classifier) {}
    bool operator()(const std::string &term) const override {
        return classifier_.is_detail(term) || classifier_.is_title(term);
    }

  private:
    const Classifier &classifier_;
};

/// The detail form of a text term (title prefix taken off), and whether it is a stem.
std::string detail_form(const Classifier &classifier, const std::string &term) {
    if (!classifier.is_title(term)) return term;
    if (term[0] == 'Z') return "Z" + term.substr(1 + classifier.prefix.size());
    return term.substr(classifier.prefix.size());
}

/// The detail term the query parser makes of a lowercase word with STEM_SOME: "Z" + its stem if it starts with a
/// letter, else the word itself.
std::string parser_term(const std::string &word, const Xapian::Stem &stemmer) {
    Xapian::Utf8Iterator first(word);
    if (first == Xapian::Utf8Iterator()) return word;
    switch (Xapian::Unicode::get_category(*first)) {
        case Xapian::Unicode::LOWERCASE_LETTER:
        case Xapian::Unicode::TITLECASE_LETTER:
        case Xapian::Unicode::MODIFIER_LETTER:
        case Xapian::Unicode::OTHER_LETTER:
            return "Z" + stemmer(word);
        default:
            return word;
    }
}

/// Whether `query` is the pair (detail term OR its title twin) the parser makes of a word of the default field,
/// for a detail term in `terms`.
bool is_pair_of(const Xapian::Query &query, const Classifier &classifier, const std::vector<std::string> &terms) {
    if (query.get_type() != Xapian::Query::OP_OR || query.get_num_subqueries() != 2) return false;
    std::string detail, title;
    if (!leaf_term(query.get_subquery(0), detail) || !leaf_term(query.get_subquery(1), title)) return false;
    if (!classifier.is_detail(detail) || title != classifier.twin(detail)) return false;
    return std::find(terms.begin(), terms.end(), detail) != terms.end();
}

class CompoundGrouper {
  public:
    CompoundGrouper(std::vector<std::vector<std::string>> compounds, const Classifier &classifier)
        : compounds_(std::move(compounds)), classifier_(classifier) {}

    Xapian::Query group(const Xapian::Query &query) {
        using Q = Xapian::Query;
        size_t count = query.get_num_subqueries();
        // Not a leaf, nor an operator with parameters of its own (phrases, scaling), nor one whose subqueries are one
        // word's forms (SYNONYM) or a compound already grouped (MAX).
        const Q::op type = query.get_type();
        if (!combines_subqueries(type) || type == Q::OP_SYNONYM || type == Q::OP_MAX) return query;
        if (count == 0) return query;
        std::vector<Q> children;
        children.reserve(count);
        for (size_t i = 0; i < count; ++i) children.push_back(query.get_subquery(i));
        if (query.get_type() == Q::OP_OR) {
            for (const auto &terms : compounds_) group_one(children, terms);
        }
        for (auto &child : children) {
            if (child.get_type() != Q::OP_MAX) child = group(child);
        }
        return Q(query.get_type(), children.begin(), children.end());
    }

  private:
    /// Among an OR's `children`: the leaves of the word (`terms[0]`) and its title twin, and either the leaves of
    /// its parts (`terms[1...]`, with twins; the OR form) or one AND of their pairs (the AND form). Found: they
    /// become one OP_MAX child.
    void group_one(std::vector<Xapian::Query> &children, const std::vector<std::string> &terms) {
        using Q = Xapian::Query;
        if (terms.size() < 2) return;
        const std::string &word = terms[0];
        const std::vector<std::string> parts(terms.begin() + 1, terms.end());
        long word_at = -1, twin_at = -1;
        std::vector<size_t> part_leaves;
        long and_at = -1;
        for (size_t i = 0; i < children.size(); ++i) {
            std::string term;
            if (leaf_term(children[i], term)) {
                if (term == word && word_at < 0) {
                    word_at = static_cast<long>(i);
                } else if (term == classifier_.twin(word) && twin_at < 0) {
                    twin_at = static_cast<long>(i);
                } else if (classifier_.is_detail(term) &&
                           std::find(parts.begin(), parts.end(), term) != parts.end()) {
                    part_leaves.push_back(i);
                } else if (classifier_.is_title(term)) {
                    for (const auto &part : parts) {
                        if (term == classifier_.twin(part)) {
                            part_leaves.push_back(i);
                            break;
                        }
                    }
                }
            } else if (is_pair_of(children[i], classifier_, parts)) {
                part_leaves.push_back(i);
            } else if (and_at < 0 && children[i].get_type() == Q::OP_AND && all_pairs_of(children[i], parts)) {
                and_at = static_cast<long>(i);
            }
        }
        if (word_at < 0 || twin_at < 0) return;
        Q whole(Q::OP_OR, children[word_at], children[twin_at]);
        std::vector<size_t> taken{static_cast<size_t>(word_at), static_cast<size_t>(twin_at)};
        Q rest;
        if (and_at >= 0) {
            rest = children[and_at];
            taken.push_back(static_cast<size_t>(and_at));
        } else if (covers(children, part_leaves, parts)) {
            std::vector<Q> leaves;
            for (size_t i : part_leaves) leaves.push_back(children[i]);
            rest = Q(Q::OP_OR, leaves.begin(), leaves.end());
            taken.insert(taken.end(), part_leaves.begin(), part_leaves.end());
        } else {
            return;
        }
        Q grouped(Q::OP_MAX, whole, rest);
        std::vector<Q> kept;
        for (size_t i = 0; i < children.size(); ++i) {
            if (std::find(taken.begin(), taken.end(), i) == taken.end()) kept.push_back(children[i]);
        }
        kept.push_back(grouped);
        children = std::move(kept);
    }

    /// Whether `query` (an AND) is made only of word pairs of `parts`, and holds each of them.
    bool all_pairs_of(const Xapian::Query &query, const std::vector<std::string> &parts) const {
        std::vector<std::string> seen;
        for (size_t i = 0, count = query.get_num_subqueries(); i < count; ++i) {
            Xapian::Query pair = query.get_subquery(i);
            if (!is_pair_of(pair, classifier_, parts)) return false;
            std::string detail;
            leaf_term(pair.get_subquery(0), detail);
            seen.push_back(detail);
        }
        for (const auto &part : parts) {
            if (std::find(seen.begin(), seen.end(), part) == seen.end()) return false;
        }
        return true;
    }

    /// Whether the leaves and pairs at `at` hold every part and its twin.
    bool covers(const std::vector<Xapian::Query> &children, const std::vector<size_t> &at,
                const std::vector<std::string> &parts) const {
        std::vector<std::string> terms;
        for (size_t i : at) {
            std::string term;
            if (leaf_term(children[i], term)) {
                terms.push_back(term);
                continue;
            }
            for (size_t j = 0; j < children[i].get_num_subqueries(); ++j) {
                if (leaf_term(children[i].get_subquery(j), term)) terms.push_back(term);
            }
        }
        for (const auto &part : parts) {
            bool detail = std::find(terms.begin(), terms.end(), part) != terms.end();
            bool title = std::find(terms.begin(), terms.end(), classifier_.twin(part)) != terms.end();
            if (!detail || !title) return false;
        }
        return true;
    }

    std::vector<std::vector<std::string>> compounds_;
    const Classifier &classifier_;
};

}  // namespace

Xapian::Query group_compounds(const Xapian::Query &query, const std::vector<std::vector<std::string>> &compounds,
                              const Xapian::Stem &stemmer, const std::string &title_prefix) {
    Classifier classifier{title_prefix};
    std::vector<std::vector<std::string>> terms;
    for (const auto &words : compounds) {
        std::vector<std::string> group;
        for (const auto &word : words) {
            std::string term = parser_term(word, stemmer);
            if (std::find(group.begin(), group.end(), term) == group.end()) group.push_back(term);
        }
        if (group.size() > 1) terms.push_back(std::move(group));
    }
    if (terms.empty()) return query;
    CompoundGrouper grouper(std::move(terms), classifier);
    return grouper.group(query);
}

Xapian::Query similar_query(const Xapian::Database &database, const std::string &unique_term, size_t max_words,
                            const FieldedRanking &ranking, double feedback_weight) {
    Xapian::PostingIterator posting = database.postlist_begin(unique_term);
    if (posting == database.postlist_end(unique_term)) {
        throw Xapian::InvalidArgumentError("no document is indexed by " + unique_term);
    }
    Xapian::docid document = *posting;
    const std::string &title_prefix = ranking.title_prefix;
    Classifier classifier{title_prefix};
    const auto stems = ranking.stems ? ranking.stems : std::make_shared<const StemTerms>("", title_prefix);
    std::vector<std::string> words;  // detail forms, stems preferred
    // A word in more than a fifth of the documents says little about any one of them ("the", "fix"), and matches
    // most of the index (Lucene's MoreLikeThis drops such words too: maxDocFreqPct).
    const Xapian::doccount common = std::max<Xapian::doccount>(database.get_doccount() / 5, 2);
    TermFrequencies frequencies(database);
    auto add = [&](const std::string &term) {
        if (StemTerms::frequency(frequencies, stems->class_of(term)) > common) return;
        std::string word = detail_form(classifier, term);
        // A stem and the word it comes from are the same word: keep the stem (it finds the other forms).
        if (std::find(words.begin(), words.end(), word) == words.end() && words.size() < max_words) {
            words.push_back(word);
        }
    };
    // The document's stem terms, with those the index left out (a word that is its own stem, held in no other form:
    // its stem term would be "Z" + the word's term).
    std::vector<std::string> terms;
    for (auto term = database.termlist_begin(document); term != database.termlist_end(document); ++term) {
        terms.push_back(*term);
    }
    std::vector<std::string> stem_terms;
    for (const auto &name : terms) {
        if (name[0] == 'Z') {
            stem_terms.push_back(name);
        } else if (stems->prunes() && (classifier.is_detail(name) || classifier.is_title(name))) {
            const std::string stem = "Z" + name;
            if (stems->class_of(stem).terms.size() > 1 && !std::binary_search(terms.begin(), terms.end(), stem)) {
                stem_terms.push_back(stem);
            }
        }
    }
    std::sort(stem_terms.begin(), stem_terms.end());
    // The title's stems first: a near-paraphrase of the title is the likeliest duplicate.
    for (const auto &name : stem_terms) {
        if (name.size() > title_prefix.size() + 1 && classifier.is_title(name)) add(name);
    }
    size_t title_words = words.size();
    Xapian::RSet relevant;
    relevant.add_document(document);
    Xapian::Enquire enquire(database);
    enquire.set_query(Xapian::Query(unique_term));
    TextTermDecider decider(classifier);
    Xapian::ESet expand = enquire.get_eset(static_cast<Xapian::termcount>(max_words * 4), relevant, &decider);
    for (auto term = expand.begin(); term != expand.end() && words.size() < max_words; ++term) {
        const std::string &name = *term;
        // Stems only: the unstemmed twin of a stem would count the same word twice. A word whose stem term the index
        // left out stands for it.
        if (name[0] == 'Z') {
            add(name);
        } else if (std::binary_search(stem_terms.begin(), stem_terms.end(), "Z" + name) &&
                   !std::binary_search(terms.begin(), terms.end(), "Z" + name)) {
            add("Z" + name);
        }
    }
    std::vector<Xapian::Query> pairs;
    for (size_t i = 0; i < words.size(); ++i) {
        const std::string title = classifier.twin(words[i]);
        Xapian::Query pair(Xapian::Query::OP_OR, Xapian::Query(words[i]), Xapian::Query(title));
        if (i >= title_words && feedback_weight != 1) {
            // Left as it is by rewrite_for_fields() (under OP_SCALE_WEIGHT): each term weighed by BM25, the title's
            // (which has no wdf) adding nothing. Where the index leaves stem terms out, a source weighs the pair so,
            // with each term's documents read as a class.
            if (stems->prunes()) {
                const StemTerms::Class details = stems->class_of(words[i]);
                const StemTerms::Class titles = stems->class_of(title);
                const double idf = FieldedBM25Weight::idf(StemTerms::frequency(frequencies, details),
                                                          std::max<Xapian::doccount>(1, database.get_doccount()));
                auto *source = new WordSource(details.terms, titles.terms, idf, ranking.k1, ranking.b, 0,
                                              database.get_avlength(), nullptr, false);
                pair = Xapian::Query(source->release());
            }
            pair = Xapian::Query(Xapian::Query::OP_SCALE_WEIGHT, pair, feedback_weight);
        }
        pairs.push_back(pair);
    }
    if (pairs.empty()) return Xapian::Query(unique_term);
    return Xapian::Query(Xapian::Query::OP_OR, pairs.begin(), pairs.end());
}

Xapian::Query FieldedQuery::whole() const {
    Xapian::Query query = base;
    if (!bonus.empty()) query = Xapian::Query(Xapian::Query::OP_AND_MAYBE, query, bonus);
    if (!title_match.empty()) query = Xapian::Query(Xapian::Query::OP_AND_MAYBE, query, title_match);
    return query;
}

FieldedQuery rewrite_for_fields(const Xapian::Query &query, const Xapian::Query &bonus,
                                const Xapian::Database &database, const FieldedRanking &ranking) {
    Rewriter rewriter(database, ranking);
    FieldedQuery fielded;
    fielded.base = rewriter.rewrite(query);
    std::vector<BonusPhrase> phrases;
    if (!bonus.empty() && bonus_phrases(bonus, Classifier{ranking.title_prefix}, phrases)) {
        // Exact phrases: weighed by PhraseBonusSource, as the query parser's phrases would be once rewritten (a
        // title phrase's terms count as query words for the title similarity, as there).
        std::vector<Xapian::Query> sources;
        for (auto &phrase : phrases) {
            phrase.weigh(database, ranking);
            if (phrase.title) {
                for (size_t i = 0; i < phrase.terms.size(); ++i) rewriter.note({phrase.terms[i]}, phrase.idfs[i]);
            }
            auto *source = new PhraseBonusSource(phrase, ranking, database.get_avlength());
            sources.push_back(Xapian::Query(source->release()));
        }
        fielded.bonus =
            sources.size() == 1 ? sources[0] : Xapian::Query(Xapian::Query::OP_OR, sources.begin(), sources.end());
        fielded.bonus_phrases = std::move(phrases);
    } else if (!bonus.empty()) {
        fielded.bonus = rewriter.rewrite(bonus);
    }
    const auto &words = rewriter.title_terms();
    fielded.title_terms = words;
    fielded.title_idfs = rewriter.title_idfs();
    if (ranking.title_match > 0 && !words.empty()) {
        auto *similarity =
            new TitleMatchSource(words, rewriter.title_idfs(), ranking.title_words_slot, ranking.title_match,
                                 ranking.title_words);
        fielded.title_match = Xapian::Query(similarity->release());
    }
    return fielded;
}

// ---- the phrase bonus of a rescoring window ----

void weigh_phrase_bonus(const Xapian::Database &database, const std::vector<BonusPhrase> &phrases,
                        const std::vector<Xapian::docid> &documents, const FieldedRanking &ranking,
                        std::vector<Xapian::docid> &matched, std::vector<double> &weights) {
    std::vector<double> added(documents.size(), 0.0);
    for (const auto &phrase : phrases) {
        // Xapian's own phrase, over the window alone: its posting lists keep their place in the position table from
        // one document to the next, where each Database::positionlist_begin() is a look-up of its own. A detail
        // phrase weighs what its terms weigh under FieldedBM25Weight (BonusPhrase::detail_weight); a title phrase's
        // terms carry no wdf, so it weighs its title_weight.
        std::vector<Xapian::Query> words;
        for (size_t t = 0; t < phrase.terms.size(); ++t) {
            words.emplace_back(phrase.terms[t], 1, static_cast<Xapian::termpos>(t + 1));
        }
        Xapian::Query exact(Xapian::Query::OP_PHRASE, words.begin(), words.end(), words.size());
        auto *window = new DocidListSource(documents);
        Xapian::Enquire enquire(database);
        enquire.set_query(Xapian::Query(Xapian::Query::OP_FILTER, exact, Xapian::Query(window->release())));
        if (phrase.title) {
            enquire.set_weighting_scheme(Xapian::BoolWeight());
        } else {
            enquire.set_weighting_scheme(FieldedBM25Weight(ranking.k1, ranking.b));
        }
        enquire.set_docid_order(Xapian::Enquire::ASCENDING);
        const Xapian::MSet found = enquire.get_mset(0, static_cast<Xapian::doccount>(documents.size()));
        for (auto hit = found.begin(); hit != found.end(); ++hit) {
            const auto at = std::lower_bound(documents.begin(), documents.end(), *hit);
            if (at == documents.end() || *at != *hit) continue;  // the filter matches only the window's documents
            added[static_cast<size_t>(at - documents.begin())] += phrase.title ? phrase.title_weight : hit.get_weight();
        }
    }
    matched.clear();
    weights.clear();
    for (size_t d = 0; d < documents.size(); ++d) {
        if (added[d] > 0) {
            matched.push_back(documents[d]);
            weights.push_back(added[d]);
        }
    }
}

// ---- ConstantSource ----

void ConstantSource::init(const Xapian::Database &database) {
    documents_ = database.get_doccount();
    last_ = database.get_lastdocid();
    current_ = 0;
    set_maxweight(weight_);
}

// ---- DocidListSource ----

DocidListSource::DocidListSource(std::vector<Xapian::docid> docids, std::vector<double> weights)
    : docids_(std::move(docids)), weights_(std::move(weights)) {
    if (weights_.size() != docids_.size()) weights_.clear();
}

DocidListSource *DocidListSource::clone() const { return new DocidListSource(docids_, weights_); }

void DocidListSource::init(const Xapian::Database &) {
    at_ = 0;
    started_ = false;
    double most = 0;
    for (double weight : weights_) most = std::max(most, weight);
    set_maxweight(most);
}

void DocidListSource::next(double) {
    if (started_ && at_ < docids_.size()) ++at_;
    started_ = true;
}

void DocidListSource::skip_to(Xapian::docid did, double) {
    started_ = true;
    at_ = static_cast<size_t>(std::lower_bound(docids_.begin() + at_, docids_.end(), did) - docids_.begin());
}

std::string DocidListSource::get_description() const {
    return "DocidListSource(" + std::to_string(docids_.size()) + " documents)";
}

}  // namespace cxapian

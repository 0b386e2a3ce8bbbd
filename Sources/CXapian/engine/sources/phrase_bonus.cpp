// phrase_bonus.cpp — BonusPhrase, PhraseBonusSource and weigh_phrase_bonus. Called only from inside the C API's guarded
// entry points, so exceptions thrown here are caught there.

#include "phrase_bonus.h"
#include "docid_list.h"

#include <cmath>

namespace cxapian {

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
    read_frequencies(ranking.frequencies);
}

PhraseBonusSource *PhraseBonusSource::clone() const {
    return with_shared(new PhraseBonusSource(phrase_, ranking_, average_length_));
}

void PhraseBonusSource::init(const Xapian::Database &database) {
    // `database` is one part of a multi-database: the idfs and average length stay the whole's, given when made.
    open(database, phrase_.terms, true);
    std::vector<std::vector<std::string>> parts;
    for (const auto &term : phrase_.terms) parts.push_back({term});
    reader_.open(database, ranking_.positions, parts);
    double most = phrase_.title_weight;
    if (!phrase_.title) {
        most = 0;
        for (double idf : phrase_.idfs) most += idf * (ranking_.k1 + 1);  // BM25 tends to idf × (k1 + 1) as tf grows
    }
    set_maxweight(most);
}

double PhraseBonusSource::get_weight() const {
    if (!reader_.read(get_docid(), positions_) || !phrase_holds(Proximity::exact, 0, positions_)) return 0;
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

// ---- the phrase bonus of a rescoring window ----

void weigh_phrase_bonus(const Xapian::Database &database, const std::vector<BonusPhrase> &phrases,
                        const std::vector<Xapian::docid> &documents, const FieldedRanking &ranking,
                        std::vector<Xapian::docid> &matched, std::vector<double> &weights) {
    std::vector<double> added(documents.size(), 0.0);
    for (const auto &phrase : phrases) {
        // The exact phrase over the window alone. A detail phrase weighs what its terms weigh under
        // FieldedBM25Weight (BonusPhrase::detail_weight); a title phrase's terms carry no wdf, so it weighs its
        // title_weight.
        std::vector<Xapian::Query> words;
        for (size_t t = 0; t < phrase.terms.size(); ++t) {
            words.emplace_back(phrase.terms[t], 1, static_cast<Xapian::termpos>(t + 1));
        }
        const Xapian::Query exact = check_positions(
            Xapian::Query(Xapian::Query::OP_PHRASE, words.begin(), words.end(), words.size()), ranking.positions);
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

}  // namespace cxapian

// query_rewrite.cpp — rewrite_for_fields. Called only from inside the C API's guarded entry points, so exceptions
// thrown here are caught there.

#include "query_rewrite.h"
#include "fielded_weight.h"
#include "query_parts.h"
#include "term_classes.h"
#include "word_pairs.h"
#include "sources/title_match.h"
#include "sources/word.h"
#include "sources/docid_list.h"

#include <cmath>
#include <map>
#include <utility>

namespace cxapian {

namespace {

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
          frequencies_(ranking.frequencies ? ranking.frequencies : std::make_shared<TermLookups>(database)) {}

    /// The title terms of every word met (a class of terms each), in order, once each: the query's words for the
    /// title similarity.
    const std::vector<std::vector<std::string>> &title_terms() const { return title_terms_; }
    /// The idf of each of ``title_terms()``.
    const std::vector<double> &title_idfs() const { return title_idfs_; }
    /// The sources made that stop at the ranking's clock (their queries' `internal`), sorted.
    std::vector<const void *> clocked_sources() const {
        std::vector<const void *> sorted = clocked_sources_;
        std::sort(sorted.begin(), sorted.end());
        return sorted;
    }
    /// The frequencies the rewrite read.
    const std::shared_ptr<TermLookups> &frequencies() const { return frequencies_; }

    /// The WordSource that is all of `query` (or the first sub-query of an AND_NOT, whose others weigh nothing, down
    /// to a word), if it is one of the default field's words this rewrite made; nullptr otherwise. Not under a
    /// filter: there the similarity's source, when the page needs a title match, leads the walk to the titles
    /// holding the word, where a filter matching more documents than they would lead it through its own.
    WordSource *sole_word(const Xapian::Query &query) const {
        switch (query.get_type()) {
            case Xapian::Query::LEAF_POSTING_SOURCE:
                for (const auto &[internal, source] : words_) {
                    if (internal == query.internal.get()) return source;
                }
                return nullptr;
            case Xapian::Query::OP_AND_NOT:
                return sole_word(query.get_subquery(0));
            default:
                return nullptr;
        }
    }

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
                    return shared(source);
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
                if (single_title_terms(query, terms)) return title_words_together(query, terms);
                return rebuild(query, 0);
            }
            case Q::OP_AND_MAYBE:
            case Q::OP_XOR:
                return rebuild(query, 0);
            case Q::OP_FILTER: {
                // A phrase of two common words filtered by their pair term: the pair's documents are the phrase's.
                std::vector<std::string> words;
                std::string pair;
                bool title = false;
                if (pair_phrase(query, words, pair, title) && title) {
                    // Title terms weigh nothing, so the pair alone is matched, weighed as the words together: its
                    // posting list at that weight, a source that ends its walk at the deadline. Walking the words'
                    // lists to the pair's documents was a third of such a phrase's match.
                    return shared(new TitleBonusSource({pair}, together_weight(words)));
                }
                if (!words.empty()) {
                    // In the detail: one walk of the pair's and the words' lists, weighed as the words.
                    std::vector<double> idfs;
                    for (const auto &word : words) idfs.push_back(idf(frequencies_->of(word)));
                    return shared(new PairPhraseSource(std::move(words), pair, std::move(idfs), ranking_.k1,
                                                       ranking_.b, database_.get_avlength(), ranking_.doc_lengths));
                }
                return rebuild(query, 1);  // only the first sub-query is weighted
            }
            case Q::OP_AND_NOT:
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
        Xapian::Query query = shared(source);
        words_.emplace_back(query.internal.get(), source);
        return query;
    }

    /// A title match where the query asks for the title alone (`title:word`, a phrase or wildcard in titles): the
    /// word counts as a saturated text match, (k1 + 1) idf, plus the title bonus, as a title word weighs at most in
    /// a WordSource. So a phrase found in a title ranks above the same phrase in a detail.
    Xapian::Query bonus(std::vector<std::string> terms, double term_idf) {
        return shared(new TitleBonusSource(std::move(terms), bonus_weight(term_idf)));
    }

    /// `source` as a query, reading the rewrite's frequencies and stopping at the ranking's clock (noted among the
    /// clocked sources).
    Xapian::Query shared(TermListsSource *source) {
        source->read_frequencies(frequencies_);
        source->stop_at(ranking_.clock);
        Xapian::Query query(source->release());
        if (ranking_.clock != nullptr) clocked_sources_.push_back(query.internal.get());
        return query;
    }

    /// What a title word of this idf weighs where the query asks for the title alone (bonus()).
    double bonus_weight(double term_idf) const { return (ranking_.k1 + 1 + ranking_.title_bonus) * term_idf; }

    /// The bonus for a title holding any of `terms` (a wildcard's or a partial word's expansion), at the idf of
    /// the most frequent of them.
    Xapian::Query any_bonus(std::vector<std::string> terms) {
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
        auto *bonuses = new ConstantSource(together_weight(terms));
        return Xapian::Query(Xapian::Query::OP_AND_MAYBE, Xapian::Query(Xapian::Query::OP_SCALE_WEIGHT, query, 0.0),
                             Xapian::Query(bonuses->release()));
    }

    /// The title bonuses of `terms` added up (each noted as a query word): what title words matched together weigh.
    double together_weight(const std::vector<std::string> &terms) {
        double weight = 0;
        for (const auto &title : terms) {
            double term_idf = idf(frequencies_->of(title));
            note({title}, term_idf);
            weight += bonus_weight(term_idf);
        }
        return weight;
    }

    /// Whether `query`'s sub-queries are all title terms that are their own class (no stem term stands for them),
    /// into `terms`.
    bool single_title_terms(const Xapian::Query &query, std::vector<std::string> &terms) const {
        return all_title_leaves(query, terms) &&
               std::all_of(terms.begin(), terms.end(),
                           [this](const std::string &title) { return class_of(title).terms.size() == 1; });
    }

    /// Whether `query` is a phrase of two words of one field filtered by their pair term, as WordPairs::filter()
    /// writes it (FILTER(AND(first, second), pair)), each word its own class (no stem term stands for it): its words
    /// into `words`, its pair term into `pair`, and whether they are title words into `title`.
    bool pair_phrase(const Xapian::Query &query, std::vector<std::string> &words, std::string &pair,
                     bool &title) const {
        using Q = Xapian::Query;
        if (query.get_num_subqueries() != 2 || !leaf_term(query.get_subquery(1), pair)) return false;
        const Q together = query.get_subquery(0);
        if (together.get_type() != Q::OP_AND || together.get_num_subqueries() != 2) return false;
        title = pair.compare(0, WordPairs::title_pair_prefix.size(), WordPairs::title_pair_prefix) == 0;
        if (!title && pair.compare(0, WordPairs::detail_pair_prefix.size(), WordPairs::detail_pair_prefix) != 0) {
            return false;
        }
        std::vector<std::string> found;
        for (size_t i = 0; i < 2; ++i) {
            std::string term;
            if (!leaf_term(together.get_subquery(i), term) ||
                !(title ? classifier_.is_title(term) : classifier_.is_detail(term)) ||
                class_of(term).terms.size() != 1) {
                return false;
            }
            found.push_back(std::move(term));
        }
        words = std::move(found);
        return true;
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
    std::shared_ptr<TermLookups> frequencies_;
    std::vector<std::vector<std::string>> title_terms_;
    std::vector<double> title_idfs_;
    std::vector<const void *> clocked_sources_;
    std::vector<std::pair<const void *, WordSource *>> words_;  // the words made (word()): their queries' internal
    bool noting_ = true;  // whether the title terms met count as the query's words (not a compound's parts)
};

}  // namespace

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
    fielded.clocked_sources = rewriter.clocked_sources();
    const auto &words = rewriter.title_terms();
    fielded.title_terms = words;
    fielded.title_idfs = rewriter.title_idfs();
    WordSource *sole = words.size() == 1 && fielded.bonus.empty() ? rewriter.sole_word(fielded.base) : nullptr;
    if (ranking.title_match > 0 && sole != nullptr) {
        // One word weighs the whole query: it adds the title similarity itself, which would walk the same title
        // lists again beside it (an AND_MAYBE's check at every match).
        sole->add_title_match(ranking.title_match, ranking.title_words_slot, ranking.title_words);
    } else if (ranking.title_match > 0 && !words.empty()) {
        auto *similarity =
            new TitleMatchSource(words, rewriter.title_idfs(), ranking.title_words_slot, ranking.title_match,
                                 ranking.title_words);
        similarity->read_frequencies(rewriter.frequencies());
        fielded.title_match = Xapian::Query(similarity->release());
    }
    return fielded;
}

}  // namespace cxapian

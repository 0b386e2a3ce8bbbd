// similar.cpp — similar_query. Called only from inside the C API's guarded entry points, so exceptions thrown
// here are caught there.

#include "similar.h"
#include "fielded_weight.h"
#include "term_classes.h"
#include "sources/word.h"

#include <algorithm>

namespace cxapian {

namespace {

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

}  // namespace

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
    TermLookups frequencies(database);
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

}  // namespace cxapian

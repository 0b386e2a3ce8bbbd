// stem_terms.h — stem terms only where they add to a document's words (internal to CXapian).
//
// Xapian's term generator (STEM_SOME) writes each word of a field twice: the word itself ("leak", positional: phrases,
// capitalised and wildcard queries search it) and "Z" + its stem ("Zleak", which a query's lowercase word searches; a
// title's are "ZS" + stem). Where the word is its own stem and the field holds no other form of it ("leaks",
// "leaking"), the stem term repeats the word's term exactly: the same document, the same wdf. That is many stem
// terms, and stem terms were a large share of the index (docs/decisions/0005-index-size.md).
//
// So an index may leave them out (the writer: StemTerms::prune), and a query then reads a stem's documents as the
// union of the stem term and the word's term (StemTerms::Class): disjoint but for the documents holding the word and
// another form of it, which keep the stem term (with the whole wdf, as before) and are marked by an overlap term, so
// that the union's document frequency is exact: tf(stem term) + tf(word) − tf(overlap). The document's length stays
// as it was: the wdf a left-out stem term carried is added to a term no query weighs (the kind term). Matches and
// weights are the same as with every stem term written.

#ifndef CXAPIAN_ENGINE_STEM_TERMS_H
#define CXAPIAN_ENGINE_STEM_TERMS_H

#include "term_lookups.h"

#include <xapian.h>

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace cxapian {

/// The stem terms of an index whose stems are left out where they repeat the word (or of one that writes them all,
/// for which every method is the identity).
class StemTerms {
  public:
    /// What marks a document holding a word that is its own stem and another form of it: this + the stem term.
    static const std::string overlap_prefix;

    /// `language`: the Snowball language the index's stems are made in, or "" for an index that writes every stem
    /// term. Title terms are `title_prefix` + word.
    StemTerms(const std::string &language, std::string title_prefix);

    /// Whether the index leaves stem terms out.
    bool prunes() const { return prunes_; }

    /// Leaves out of `document` (once all of its text is indexed) each stem term that repeats its word's term, adding
    /// its wdf to `length_term`'s, and marks the documents that keep one beside the word's term. Not thread-safe.
    void prune(Xapian::Document &document, const std::string &length_term) const;

    /// The terms whose documents, together, are those of a stem term in an index that writes them all.
    struct Class {
        /// The stem term, then the word's term if the word is its own stem (a term that is no stem term: itself).
        std::vector<std::string> terms;
        /// The term marking the documents both terms hold ("" when there is one term).
        std::string overlap;
    };

    /// The class of `term`. Thread-safe.
    Class class_of(const std::string &term) const;

    /// How many documents hold the class (exactly), by `frequencies` of its terms.
    static Xapian::doccount frequency(TermLookups &frequencies, const Class &term_class);

    /// `query` with each stem term (a leaf) replaced by its class, as an OR of disjoint parts (the stem term, and the
    /// word's term where the document has no stem term): the same documents, each with the same wdf. Under an
    /// operator that carries a parameter (a phrase's window, a scale, a value range) nothing is replaced: no stem term
    /// is ever there but under OP_SCALE_WEIGHT, which only this library makes (similar_query, as classes already).
    Xapian::Query expand(const Xapian::Query &query) const;

  private:
    /// The word of stem term `term` and whether it is a title's; false for a term that is no stem term.
    bool split(const std::string &term, std::string &word, bool &title) const;
    /// Whether `word` is its own stem (cached: a text repeats its words).
    bool is_own_stem(const std::string &word) const;

    bool prunes_;
    std::string title_prefix_;
    mutable std::mutex mutex_;  // guards the stemmer (not thread-safe) and the cache
    mutable Xapian::Stem stemmer_;
    mutable std::unordered_map<std::string, bool> own_stems_;
};

}  // namespace cxapian

#endif

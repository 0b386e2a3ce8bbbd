// fielded_ranking.h — Spotlite's ranking over a title and a detail field (internal to CXapian).
//
// Xapian 1.4 scores every term of a query with one weighting scheme against the whole document's length, so a
// title indexed under its own prefix gets its own (higher) document frequency and is normalised by the length of
// the detail. Spotlite ranks as the two-field models of the literature do (BM25F and its simplifications):
//
//   score(d) = Σ over query words t of  idf(t) · tf · (k1 + 1) / (tf + k1 · (1 − b + b · |detail| / avg))
//                                      + title_bonus · idf(t) · [t in the title of d]
//   with tf = [t in the title of d] + tf(t, detail)
//
// with one idf per word, from the number of documents holding it in either field: the title counts as part of the
// text once, and once more as the title. The title's terms carry wdf 0, so a document's length is its detail's;
// rewrite_for_fields() turns the query parser's pair (detail term OR title term) for each word into a WordSource
// over both, and gives title-only queries (title:word, phrases in titles) the bonus alone (TitleBonusSource).

#ifndef CXAPIAN_FIELDED_RANKING_H
#define CXAPIAN_FIELDED_RANKING_H

#include "stem_terms.h"

#include <xapian.h>

#include <cstdint>
#include <memory>
#include <mutex>

#include <string>
#include <vector>

namespace cxapian {

/// BM25 over what is left of a document once its title carries no wdf: its detail. idf is log((N − n + ½)/(n + ½)),
/// smoothed as Xapian's BM25 is where that would be small or negative (ratio < 2 → ½·ratio + 1).
class FieldedBM25Weight : public Xapian::Weight {
  public:
    FieldedBM25Weight(double k1, double b);

    FieldedBM25Weight *clone() const override;
    void init(double factor) override;
    std::string name() const override;
    double get_sumpart(Xapian::termcount wdf, Xapian::termcount doclen, Xapian::termcount uniqterms) const override;
    double get_maxpart() const override;
    double get_sumextra(Xapian::termcount doclen, Xapian::termcount uniqterms) const override;
    double get_maxextra() const override;

    /// The idf of a term in `termfreq` of `collection_size` documents, as this scheme computes it.
    static double idf(double termfreq, double collection_size);

    /// BM25's term-frequency part: tf · (k1 + 1) / (tf + k1 · (1 − b + b · length / average_length)); 0 for tf 0.
    static double saturation(double tf, double length, double average_length, double k1, double b);

  private:
    double k1_;
    double b_;
    double termweight_ = 0;  // idf × the factor the matcher scales this term by
    double average_length_ = 1;
};

/// A posting source over several terms' posting lists, in document order: the documents any of the terms index (a
/// union) or all of them do (an intersection); the document at hand and which of the terms index it. The sources
/// below are such walks; each says what a document weighs.
class TermListsSource : public Xapian::PostingSource {
  public:
    Xapian::doccount get_termfreq_min() const override { return termfreq_min_; }
    Xapian::doccount get_termfreq_est() const override { return termfreq_max_; }
    Xapian::doccount get_termfreq_max() const override { return termfreq_max_; }
    void next(double min_wt) override;
    void skip_to(Xapian::docid did, double min_wt) override;
    bool at_end() const override { return started_ && current_ == 0; }
    Xapian::docid get_docid() const override { return current_; }

  protected:
    /// Opens the lists of the `terms` that index any document of `database`, before the first document: to walk the
    /// documents any of them index, or with `every` those all of them index.
    void open(const Xapian::Database &database, const std::vector<std::string> &terms, bool every = false);

    /// The database open() was given.
    const Xapian::Database &database() const { return database_; }

    /// Calls `body(i)` for each term `terms[i]` (as given to open()) that indexes the current document, in order.
    template <typename Body> void for_each_match(Body body) const {
        for_each_posting([&](size_t term, const Xapian::PostingIterator &) { body(term); });
    }

    /// Calls `body(i, posting)` for each term `terms[i]` that indexes the current document, with the posting list
    /// at it (its wdf and the document's length), in order.
    template <typename Body> void for_each_posting(Body body) const {
        for (const auto &list : lists_) {
            if (list.docid == current_ && current_ != 0) body(list.term, list.at);
        }
    }

  private:
    /// Moves to the first document from `did` on that the lists hold as asked (0 past the last).
    void settle(Xapian::docid did);

    struct List {
        Xapian::PostingIterator at;
        Xapian::PostingIterator end;
        size_t term;
        /// The document `at` is at, 0 at the end: read once per move, where each `*at` is a call into Xapian (a
        /// word's walk asked it up to four times per document and list).
        Xapian::docid docid;

        /// Moves to the first document from `did` on (`did` past the list's document): the next one when that is
        /// the document after it, which Xapian finds without the search a skip does.
        void move_to(Xapian::docid did) {
            if (did - 1 == docid) {
                ++at;
            } else {
                at.skip_to(did);
            }
            docid = at == end ? 0 : *at;
        }
    };
    Xapian::Database database_;  // kept open while the lists are walked
    std::vector<List> lists_;
    bool every_ = false;
    Xapian::docid current_ = 0;
    bool started_ = false;
    Xapian::doccount termfreq_min_ = 0;
    Xapian::doccount termfreq_max_ = 0;
};

/// Matches the documents any of `terms` index (title terms) with one fixed weight.
class TitleBonusSource : public TermListsSource {
  public:
    TitleBonusSource(std::vector<std::string> terms, double weight);

    TitleBonusSource *clone() const override;
    void init(const Xapian::Database &database) override;
    double get_weight() const override;
    std::string get_description() const override;

  private:
    std::vector<std::string> terms_;
    double weight_;
};

/// The tables made in this process, for every reader of the same database at the same revision to use: a server's
/// sessions each hold a reader of one index, and without this each made (and held) its own copy of every table at
/// every revision. Held weakly: a table lives as long as a reader holds it.
class SharedTables {
  public:
    /// What identifies the table `name` of `database` as it is now, given where it was opened (`path`): the path,
    /// the database's UUID (a rebuild's new generation has a new one) and its revision, document count and last
    /// docid (two copies of one index share a UUID, and could reach one revision with different documents).
    static std::string key(const std::string &name, const std::string &path, const Xapian::Database &database);
    /// The table kept under `key`, if a reader still holds it.
    static std::shared_ptr<const void> find(const std::string &key);
    /// Keeps `table` under `key` for other readers and returns it; or the table already kept there (made meanwhile
    /// by another reader), which is the one to use.
    static std::shared_ptr<const void> keep(const std::string &key, std::shared_ptr<const void> table);
};

/// A table made from one database at one revision (TitleWords, DocLengths, a sort's keys), kept by a reader for its
/// searches until the revision moves on; safe to use from several threads.
///
/// A table is made on the second search at a revision that asks for it, not the first: reading a whole value slot or
/// length list costs several searches' worth of seeks, which a reader that searches once,
/// or whose index moves on after each search, would pay for nothing. A table another reader of the same database has
/// made at that revision (SharedTables) is used at once, made by neither.
template <typename Table> class RevisionTableCache {
  public:
    /// The table `name` for `database` (opened at `path`) as it is now, made by `make(database)` (which may give
    /// nullptr: no table fits); nullptr on the first search at its revision unless another reader made it, and when
    /// its docids are mostly holes (more than four per document: a table indexed by docid would be mostly empty).
    template <typename Make>
    std::shared_ptr<const Table> get(const Xapian::Database &database, const std::string &name,
                                     const std::string &path, Make make) {
        const Xapian::rev revision = database.get_revision();
        std::lock_guard<std::mutex> lock(mutex_);
        if (made_ && revision_ == revision) return table_;
        const std::string key = SharedTables::key(name, path, database);
        if (!seen_ || revision_ != revision) {
            seen_ = true;
            made_ = false;
            revision_ = revision;
            table_ = std::static_pointer_cast<const Table>(SharedTables::find(key));
            made_ = table_ != nullptr;
            return table_;
        }
        made_ = true;  // or found not to fit: once per revision
        if (database.get_lastdocid() > 4 * uint64_t(database.get_doccount()) + 4096) return nullptr;
        std::shared_ptr<const Table> table = make(database);
        if (table == nullptr) return nullptr;
        ++tables_made_;
        table_ = std::static_pointer_cast<const Table>(SharedTables::keep(key, table));
        return table_;
    }

    /// How many tables this cache has made itself (not taken from another reader).
    uint64_t tables_made() {
        std::lock_guard<std::mutex> lock(mutex_);
        return tables_made_;
    }

  private:
    std::mutex mutex_;
    std::shared_ptr<const Table> table_;
    Xapian::rev revision_ = 0;
    bool seen_ = false;
    bool made_ = false;
    uint64_t tables_made_ = 0;
};

/// `table` if it was made from `database` as it is now (one database at its current revision), else nullptr: a table
/// is not used for a multi-database's part, nor by a reader reopened since it was made.
template <typename Table> const Table *table_of(const Table *table, const Xapian::Database &database) {
    return table != nullptr && database.size() == 1 && table->revision() == database.get_revision() ? table : nullptr;
}

/// Every document's length (what BM25 normalises by: its detail's words), in one table: a long-lived reader's
/// WordSources look a length up by docid instead of moving the database's length list forward to each match, which
/// decodes every length on the way (a fifth of an OR search's match at 100k items, `profile search 100000 1000 OR`).
class DocLengths {
  public:
    /// A document the table does not hold: its length is read from the database.
    static constexpr uint32_t unknown = UINT32_MAX;

    /// Reads the length of every document of `database` at its current revision.
    explicit DocLengths(const Xapian::Database &database);

    Xapian::rev revision() const { return revision_; }
    /// The length of `did`, or `unknown`.
    uint32_t length(Xapian::docid did) const { return did < lengths_.size() ? lengths_[did] : unknown; }

  private:
    Xapian::rev revision_;
    std::vector<uint32_t> lengths_;
};

/// One word of the default field, weighed over the item's whole text: BM25 of its detail term with the title
/// counting as one more occurrence (tf = [word in the title] + wdf in the detail, over the document's length), plus
/// a bonus of `title_bonus` for a title holding it. An item whose title alone says the word weighs as much as one
/// whose detail repeats its title once, and a title word weighs more than a detail word.
///
/// A field's term is a class of terms (StemTerms::Class: a stem term, and the word's term where the index leaves the
/// stem term out): a document holds the word where it holds any of them, with the largest wdf among them (the stem
/// term's, which counts every form, where both are there).
class WordSource : public TermListsSource {
  public:
    /// `average_length`: the documents' average length over the whole (multi-)database searched. `lengths`: the
    /// documents' lengths in a table, used when it is of the database searched at its current revision. Without
    /// `title_counts`, a title holding the word only makes the document match (a feedback word of "more like this",
    /// weighed as BM25 of its detail term alone).
    WordSource(std::vector<std::string> detail, std::vector<std::string> title, double idf, double k1, double b,
               double title_bonus, double average_length, std::shared_ptr<const DocLengths> lengths = nullptr,
               bool title_counts = true);

    WordSource *clone() const override;
    void init(const Xapian::Database &database) override;
    double get_weight() const override;
    std::string get_description() const override;

  private:
    std::shared_ptr<const DocLengths> lengths_;
    const DocLengths *lengths_here_ = nullptr;  // lengths_, when it is of the database init() was given
    std::vector<std::string> detail_;
    std::vector<std::string> title_;
    double idf_;
    double k1_;
    double b_;
    double title_bonus_;
    double average_length_ = 1;
    bool title_counts_;
};

/// Every document's number of distinct title words (the value slot the title similarity reads), in one table:
/// a long-lived reader's searches look a count up by docid instead of seeking through the value stream for each
/// document with a query word in its title. That seek decoded the stream's chunk up to the document every time: a
/// third of a one-word search's match at 100k items (perf, `profile search 100000 1500 word`). A table is read in
/// one pass over the stream, for one revision of one database (not a multi-database's).
class TitleWords {
  public:
    /// Counts of at least this many are not kept: such documents are read from the value stream.
    static constexpr uint16_t unknown = 0xFFFF;

    /// Reads `slot` of every document of `database` at its current revision.
    TitleWords(const Xapian::Database &database, Xapian::valueno slot);

    Xapian::rev revision() const { return revision_; }
    /// The count for `did`, or `unknown`.
    uint16_t count(Xapian::docid did) const { return did < counts_.size() ? counts_[did] : uint16_t(0); }

  private:
    Xapian::rev revision_;
    std::vector<uint16_t> counts_;
};

/// The title-word table of one reader (see RevisionTableCache).
using TitleWordsCache = RevisionTableCache<TitleWords>;

/// Documents' numbers of distinct title words, asked for in ascending docid order: from `table` when it was read
/// from this database at its current revision, otherwise (or for a count the table does not hold) from the value
/// stream, moved forward from one document to the next.
class TitleWordReader {
  public:
    TitleWordReader() = default;
    TitleWordReader(const Xapian::Database &database, Xapian::valueno slot, const TitleWords *table);

    /// The count for `did`, 0 for a document without one.
    double words(Xapian::docid did);

  private:
    Xapian::Database database_;
    Xapian::valueno slot_ = 0;
    const TitleWords *table_ = nullptr;
    bool opened_ = false;  // whether stream_ and end_ are the slot's
    Xapian::ValueIterator stream_;
    Xapian::ValueIterator end_;
};

/// Adds `weight` × the Jaccard similarity of the query's words and a document's title words: |Q ∩ T| / |Q ∪ T|,
/// where T's size is read from a value slot (the title's distinct words, sortable-serialised). Titles that say
/// what the query says, and little else, rank first: a near-paraphrase of a bug's title is a likely duplicate, and
/// for short queries it favours concise titles, as per-field length normalisation does.
class TitleMatchSource : public TermListsSource {
  public:
    /// `terms`: one title term per query word (a class of terms, StemTerms::Class: a title holds the word where it
    /// holds any of them), with the word's idf in `idfs`: the overlap is weighted by idf, a title word the query lacks
    /// counting as a query word of average idf.
    TitleMatchSource(std::vector<std::vector<std::string>> terms, std::vector<double> idfs,
                     Xapian::valueno title_words_slot, double weight,
                     std::shared_ptr<const TitleWords> table = nullptr);

    TitleMatchSource *clone() const override;
    void init(const Xapian::Database &database) override;
    double get_weight() const override;
    std::string get_description() const override;

    /// The similarity of a title of `title_words` distinct words holding `matched` of the query's `count` words,
    /// whose idfs add up to `matched_idf` (of `total_idf`), at `weight`.
    static double similarity(size_t matched, double matched_idf, double title_words, size_t count, double total_idf,
                             double weight);

  private:
    std::vector<std::vector<std::string>> terms_;
    std::vector<size_t> word_of_;  // the query word of each term, in the order init() opens them
    std::vector<double> idfs_;
    double total_idf_ = 0;
    Xapian::valueno slot_;
    double weight_;
    // The database's title-word table, when the caller has one (kept for clones; read through title_words_).
    std::shared_ptr<const TitleWords> table_;
    // Moved forward by get_weight(), in step with the documents (which only increase).
    mutable TitleWordReader title_words_;
};

/// The parameters of the ranking.
struct FieldedRanking {
    double k1;
    double b;
    /// A title occurrence is worth this many idf units (k1 + 1 makes it worth the strongest detail match).
    double title_bonus;
    /// The title's term prefix (e.g. "S"); its stemmed terms are "Z" + prefix + stem.
    std::string title_prefix;
    /// The weight of the title similarity (TitleMatchSource); 0 for none.
    double title_match;
    /// The value slot holding each document's number of distinct title words.
    Xapian::valueno title_words_slot;
    /// Those numbers in a table, for the single database searched (nullptr: read from the value slot).
    std::shared_ptr<const TitleWords> title_words = nullptr;
    /// The documents' lengths in a table, for the single database searched (nullptr: read from the database).
    std::shared_ptr<const DocLengths> doc_lengths = nullptr;
    /// Which stem terms the index leaves out (nullptr: it writes them all).
    std::shared_ptr<const StemTerms> stems = nullptr;
    /// The term frequencies of the database the query is rewritten for, read once each and kept by the caller for
    /// what it asks after the match (nullptr: the rewrite keeps its own).
    std::shared_ptr<TermFrequencies> frequencies = nullptr;
};

/// One exact phrase of a bonus: its terms, in order, whether they are title terms, and what it weighs as the bonus
/// weighs it: a phrase of detail terms adds each term's BM25 (FieldedBM25Weight, with the term's `idfs`), a phrase
/// of title terms (which carry no wdf) adds `title_weight`, each term's title bonus (as a title phrase rewritten by
/// rewrite_for_fields() would).
struct BonusPhrase {
    std::vector<std::string> terms;
    bool title = false;
    std::vector<double> idfs;
    double title_weight = 0;

    /// Sets the weights from `database`'s statistics (the whole of a multi-database).
    void weigh(const Xapian::Database &database, const FieldedRanking &ranking);

    /// What term `term` of a detail phrase adds to a document holding the phrase, with the term's `wdf` there and
    /// the document's `length`.
    double detail_weight(size_t term, Xapian::termcount wdf, Xapian::termcount length, double average_length,
                         const FieldedRanking &ranking) const {
        return idfs[term] * FieldedBM25Weight::saturation(wdf, length, average_length, ranking.k1, ranking.b);
    }
};

/// The exact-phrase bonus of one phrase: matches the documents holding all of its terms, and weighs those holding
/// them together, in order, at consecutive positions, as BonusPhrase says; 0 for the others.
///
/// Used for the bonus instead of Xapian's OP_PHRASE under OP_AND_MAYBE: with the title similarity beside it, Xapian
/// 1.4 gave the phrase's weight to documents holding its words apart (seen on the Debian and synthetic corpora).
class PhraseBonusSource : public TermListsSource {
  public:
    /// `average_length`: the documents' average length over the whole (multi-)database searched.
    PhraseBonusSource(BonusPhrase phrase, const FieldedRanking &ranking, double average_length);

    PhraseBonusSource *clone() const override;
    void init(const Xapian::Database &database) override;
    double get_weight() const override;
    std::string get_description() const override;

  private:
    /// The positions of `term` in document `did` of `database`, ascending (none if it does not hold the term).
    static std::vector<Xapian::termpos> positions(const Xapian::Database &database, Xapian::docid did,
                                                  const std::string &term);

    /// Whether position lists `lists[0]`, `lists[1]`, ... (each ascending) hold p, p + 1, ... for some p.
    static bool holds_phrase(const std::vector<std::vector<Xapian::termpos>> &lists);

    BonusPhrase phrase_;
    FieldedRanking ranking_;
    double average_length_;
};

/// A query for documents like the one indexed by `unique_term` ("more like this"): its title's words, then the
/// words of its detail Xapian's relevance feedback (the expand set of the document alone) weighs highest, up to
/// `max_words` in all, each as the pair (detail term OR title term) that rewrite_for_fields() ranks; the feedback
/// words count `feedback_weight` times a title word, weighed as BM25 of their detail term alone (under
/// OP_SCALE_WEIGHT, which the rewrite leaves as it is). The document itself matches too (callers leave it out, and
/// may use its score as the best possible). Throws Xapian::InvalidArgumentError if no document has `unique_term`.
Xapian::Query similar_query(const Xapian::Database &database, const std::string &unique_term, size_t max_words,
                            const FieldedRanking &ranking, double feedback_weight);

/// `query` with the leaves of each compound word written out with its parts (TextNormalizer: `(W OR w1 OR w2)`
/// among words joined by OR, `(W OR (w1 w2))` otherwise) grouped as OP_MAX(W, parts): the word counts once, at the
/// weight of whichever form a document holds best, so "ZooKeeper" does not outweigh "Zookeeper" three times over.
/// `compounds`: each compound's word then its parts, lowercased, as typed into the query; their terms are made as
/// the query parser makes them (`stemmer`, STEM_SOME: "Z" + stem for a word that starts with a letter). A compound
/// whose leaves are not found as expected is left as it is.
Xapian::Query group_compounds(const Xapian::Query &query, const std::vector<std::vector<std::string>> &compounds,
                              const Xapian::Stem &stemmer, const std::string &title_prefix);

/// A query rewritten for the fielded ranking, in its parts: what every match is ranked by, and the extras that
/// only add weight to some matches (they never change which documents match).
struct FieldedQuery {
    /// The query itself, each word a WordSource.
    Xapian::Query base;
    /// The bonus (e.g. the words as an exact phrase), rewritten alike; empty for none.
    Xapian::Query bonus;
    /// The title similarity (TitleMatchSource); empty for none.
    Xapian::Query title_match;
    /// What the title similarity weighs: the query's title terms (a class of terms a word), each word's idf.
    std::vector<std::vector<std::string>> title_terms;
    std::vector<double> title_idfs;
    /// The bonus as exact phrases, each weighed, when it is an OR of such phrases (the bonus is then their
    /// PhraseBonusSources); empty otherwise.
    std::vector<BonusPhrase> bonus_phrases;

    /// The query as a whole: the base, with the bonus and the title similarity where they match.
    Xapian::Query whole() const;
};

/// `query` (and `bonus`, its optional extra weight) with each word's pair of terms turned into a WordSource and
/// title-only terms into a TitleBonusSource, as described above, and the title similarity over the words of both.
/// Sub-queries it does not know stay as they are.
FieldedQuery rewrite_for_fields(const Xapian::Query &query, const Xapian::Query &bonus,
                                const Xapian::Database &database, const FieldedRanking &ranking);

/// The title similarity (TitleMatchSource, over the query's `terms` with their `idfs`) of each of `documents`
/// (ascending, without repeats): the title terms' posting lists and the title-words slot read in document order.
std::vector<double> weigh_title_match(const Xapian::Database &database,
                                      const std::vector<std::vector<std::string>> &terms,
                                      const std::vector<double> &idfs, const FieldedRanking &ranking,
                                      const std::vector<Xapian::docid> &documents);

/// The exact-phrase bonus (`phrases`, FieldedQuery::bonus_phrases) of each of `documents` (ascending, without
/// repeats), weighed as PhraseBonusSource weighs it. Into `matched` and `weights`: the documents a phrase matches,
/// ascending, and what the bonus adds to each.
///
/// Each phrase is Xapian's own OP_PHRASE, filtered to the documents (OP_FILTER over a DocidListSource; as a filter,
/// not the optional side of an AND_MAYBE, where Xapian 1.4 misplaces its weight, see PhraseBonusSource), weighed
/// by FieldedBM25Weight for a detail phrase (what BonusPhrase::detail_weight adds up) and by its title_weight for
/// a title phrase. Xapian's phrase reads positions through its posting lists, which keep their place in the
/// position table from one document to the next; each Database::positionlist_begin() is a B-tree look-up of its
/// own, a block read: reading the posting lists and then the positions here took three times the block reads
/// (docs/decisions/0003-phrase-bonus-window.md).
void weigh_phrase_bonus(const Xapian::Database &database, const std::vector<BonusPhrase> &phrases,
                        const std::vector<Xapian::docid> &documents, const FieldedRanking &ranking,
                        std::vector<Xapian::docid> &matched, std::vector<double> &weights);

/// A fixed weight for every document it is moved to: the optional side of an AND_MAYBE whose required side holds what
/// earns it (the words of a title phrase, each worth its title bonus). Unlike Xapian's FixedWeightPostingSource it
/// reads nothing (that one walks the index's list of every document); as anything but the optional side of an
/// AND_MAYBE it would match documents that do not exist.
class ConstantSource : public Xapian::PostingSource {
  public:
    explicit ConstantSource(double weight) : weight_(weight) {}

    ConstantSource *clone() const override { return new ConstantSource(weight_); }
    void init(const Xapian::Database &database) override;
    Xapian::doccount get_termfreq_min() const override { return 0; }
    Xapian::doccount get_termfreq_est() const override { return documents_; }
    Xapian::doccount get_termfreq_max() const override { return documents_; }
    void next(double) override { ++current_; }
    void skip_to(Xapian::docid did, double) override { current_ = std::max(current_, did); }
    bool check(Xapian::docid did, double) override {
        current_ = std::max(current_, did);
        return true;
    }
    bool at_end() const override { return current_ > last_; }
    Xapian::docid get_docid() const override { return current_; }
    double get_weight() const override { return weight_; }
    std::string get_description() const override { return "ConstantSource(" + std::to_string(weight_) + ")"; }

  private:
    double weight_;
    Xapian::doccount documents_ = 0;
    Xapian::docid last_ = 0;
    Xapian::docid current_ = 0;
};

/// Matches exactly the documents of a list, adding no weight or a weight given for each: a second match restricted
/// to the candidates a first one found (rescoring), or what weigh_phrase_bonus() found.
class DocidListSource : public Xapian::PostingSource {
  public:
    /// `docids` sorted ascending, without repeats; `weights` empty, or one for each.
    explicit DocidListSource(std::vector<Xapian::docid> docids, std::vector<double> weights = {});

    DocidListSource *clone() const override;
    void init(const Xapian::Database &database) override;
    Xapian::doccount get_termfreq_min() const override { return static_cast<Xapian::doccount>(docids_.size()); }
    Xapian::doccount get_termfreq_est() const override { return static_cast<Xapian::doccount>(docids_.size()); }
    Xapian::doccount get_termfreq_max() const override { return static_cast<Xapian::doccount>(docids_.size()); }
    void next(double min_wt) override;
    void skip_to(Xapian::docid did, double min_wt) override;
    bool at_end() const override { return started_ && at_ == docids_.size(); }
    Xapian::docid get_docid() const override { return docids_[at_]; }
    double get_weight() const override { return weights_.empty() ? 0 : weights_[at_]; }
    std::string get_description() const override;

  private:
    std::vector<Xapian::docid> docids_;
    std::vector<double> weights_;
    size_t at_ = 0;
    bool started_ = false;
};

}  // namespace cxapian

#endif

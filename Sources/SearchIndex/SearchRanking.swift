import Xapian

/// How Spotlite ranks by relevance: the two-field model of CXapian's engine (`engine/query_rewrite.h`).
///
/// For each query word: BM25 over the item's text, the title counting as one more occurrence of a word it holds (its
/// length normalised against the average detail); plus a bonus of ``titleBonus`` × the word's idf when the word is
/// in the title, one idf per word from the documents holding it in either field; and ``titleMatch`` × the
/// idf-weighted overlap (Jaccard) of the query's words and the title's. Chosen on the GitBugs dev set (docs/ranking.md)
/// for reasons that carry over to other trackers:
///
/// - the title is a field of its own, as FTS5's per-column bm25 and BM25F treat it: a long description does not
///   dilute its title, and a word's rarity is counted once per document, not once per field;
/// - the title is also part of the text: many items have only a title, and such an item must weigh as much as one
///   whose detail merely repeats its title (with the title outside the text, a bare "Upgrade ZooKeeper to 3.8.2"
///   lost to every wordier upgrade bug);
/// - k1 = 1.2 and b = 0.75 are BM25's usual values (and FTS5's); the dev set moves little across 0.9–1.6 and
///   0.6–0.9 (`make relevance` with `--sweep`);
/// - a title word is worth three quarters of an idf more than the same word in the detail: enough to put title
///   matches first for short queries; more than about one idf lets the title outweigh what the detail says;
/// - a title that says what the query says, and little else, comes first: a near-paraphrase of a bug's title is
///   its likeliest duplicate, and for a one-word query it favours short titles, as per-field length normalisation
///   does.
public struct SearchRanking: Sendable, Equatable {
    public var k1: Double
    public var b: Double
    public var titleBonus: Double
    /// Weight of the title similarity: the Jaccard overlap of the query's words and the title's.
    public var titleMatch: Double
    /// When a query has a phrase bonus (two to eight plain words), the bonus and the title similarity are weighed
    /// only for this many of the best matches without them (the page, if it reaches further), which are then ranked
    /// with them: a rescoring window, as search engines have (Elasticsearch's `rescore.window_size`), because checking
    /// word positions for every match that holds all the words is the costly part of a plain search
    /// (docs/decisions/0003-phrase-bonus-window.md has the measurements). Pages within the window are cut from one
    /// ranking, so they join up, and an item in the window weighs what the whole query gives it. 0 weighs them for
    /// every match.
    public var rescoreWindow: Int

    public init(k1: Double, b: Double, titleBonus: Double, titleMatch: Double, rescoreWindow: Int = 50) {
        self.k1 = k1
        self.b = b
        self.titleBonus = titleBonus
        self.titleMatch = titleMatch
        self.rescoreWindow = rescoreWindow
    }

    /// How many words a "more like this" query (``SearchReader/similar(to:_:maxWords:)``) takes from a document.
    public static let similarWords = 32
    /// How much a word relevance feedback adds to a "more like this" query weighs next to a title word.
    public static let similarFeedbackWeight = 0.15
    /// The likeness (a hit's score over the item's own) from which `similar` calls a hit a likely duplicate: on the
    /// GitBugs dev set known duplicates are several times as frequent above it as below it (the table `make
    /// relevance` prints), and a higher threshold misses many of them for little more precision (docs/ranking.md).
    public static let duplicateLikeness = 0.5

    public static let standard = SearchRanking(k1: 1.2, b: 0.75, titleBonus: 0.75, titleMatch: 2.0)

    var fielded: FieldedRanking {
        FieldedRanking(
            k1: k1, b: b, titleBonus: titleBonus, titlePrefix: TermPrefix.title, titleMatch: titleMatch,
            titleWordsSlot: ValueSlot.titleWords)
    }
}

import BenchmarkSupport
import Foundation
import SearchIndex

// The relevance harness (docs/ranking.md): Spotlite next to SQLite FTS5 on the GitBugs dev set, in one run.
//   swift run -c release --package-path Benchmarks relevance           the table
//   … relevance --check      exit 1 if Spotlite is below FTS5, the Jira CSV import ranks otherwise than the JSON
//                            Lines, or ranking by known duplicate groups makes similar worse
//   … relevance --sweep                                                 the title-OR task across k1, b, title bonus
let arguments = Set(CommandLine.arguments.dropFirst())
let run = try RelevanceRun(devSet: try RelevanceDevSet.load())

// SPOTLITE_RANKING=k1,b,titleBonus,titleMatch[,rescoreWindow] tries another ranking for the table's title-OR row.
var ranking = SearchRanking.standard
if let given = ProcessInfo.processInfo.environment["SPOTLITE_RANKING"]?.split(separator: ",").compactMap({ Double($0) }
),
    given.count == 4 || given.count == 5
{
    ranking = SearchRanking(
        k1: given[0], b: given[1], titleBonus: given[2], titleMatch: given[3],
        rescoreWindow: given.count == 5 ? Int(given[4]) : SearchRanking.standard.rescoreWindow)
}
let spotlite = try run.spotliteTitleOR(ranking: ranking)
let fts5 = try run.fts5TitleOR()
func ratio(_ a: Double, _ b: Double) -> String { b == 0 ? "–" : String(format: "%.2f×", a / b) }
print("GitBugs Hadoop dev set: \(run.devSet.queries.count) queries, title words joined with OR")
print("| task | Spotlite R@10 | FTS5 R@10 | ratio | Spotlite MRR@10 | FTS5 MRR@10 | ratio |")
print("|---|---|---|---|---|---|---|")
print(
    String(
        format: "| title OR | %.3f | %.3f | %@ | %.3f | %.3f | %@ |", spotlite.meanRecall, fts5.meanRecall,
        ratio(spotlite.meanRecall, fts5.meanRecall), spotlite.meanReciprocalRank, fts5.meanReciprocalRank,
        ratio(spotlite.meanReciprocalRank, fts5.meanReciprocalRank)))

let similar = try run.spotliteSimilar()
let fts5Similar = try run.fts5Similar()
print(
    String(
        format: "| similar (the bug's title and detail) | %.3f | %.3f | %@ | %.3f | %.3f | %@ |",
        similar.scores.meanRecall,
        fts5Similar.meanRecall, ratio(similar.scores.meanRecall, fts5Similar.meanRecall),
        similar.scores.meanReciprocalRank, fts5Similar.meanReciprocalRank,
        ratio(similar.scores.meanReciprocalRank, fts5Similar.meanReciprocalRank)))

for count in [2, 3] {
    let short = try run.spotliteFirstWords(count)
    let fts5Short = try run.fts5FirstWords(count)
    print(
        String(
            format: "| the title's first %d words (all must match) | %.3f | %.3f | %@ | %.3f | %.3f | %@ |", count,
            short.meanRecall, fts5Short.meanRecall, ratio(short.meanRecall, fts5Short.meanRecall),
            short.meanReciprocalRank, fts5Short.meanReciprocalRank,
            ratio(short.meanReciprocalRank, fts5Short.meanReciprocalRank)))
}

// The same bugs through the Jira CSV importer, the duplicate pairs as links: the same figures when links do not rank;
// `similar` ranking by known duplicate groups, each query's own links left out of its ranking.
let csvRun = try RelevanceRun(devSet: try RelevanceDevSet.load(), source: .jiraCSV)
let csvTitleOR = try csvRun.spotliteTitleOR(ranking: ranking)
let csvSimilar = try csvRun.spotliteSimilar().scores
let csvLinked = try csvRun.spotliteSimilar(byLinks: true).scores
print(
    "\nThe same bugs imported with --from jira-csv, the duplicate pairs as links (\(csvRun.devSet.queries.count) queries"
        + " mapped), against the JSON Lines run above")
print("| task | JSON Lines R@10 | Jira CSV R@10 | JSON Lines MRR@10 | Jira CSV MRR@10 |")
print("|---|---|---|---|---|")
func row(_ task: String, _ lines: RelevanceScores, _ csv: RelevanceScores) {
    print(
        String(
            format: "| %@ | %.3f | %.3f | %.3f | %.3f |", task, lines.meanRecall, csv.meanRecall,
            lines.meanReciprocalRank, csv.meanReciprocalRank))
}
row("title OR", spotlite, csvTitleOR)
row("similar, links not ranking", similar.scores, csvSimilar)
row("similar, ranked by known duplicate groups (the query's own links left out)", similar.scores, csvLinked)

// The --check-duplicates threshold: how often a top-5 similar hit at or above a likeness is a known duplicate.
print("\nsimilar's top 5 hits by likeness: known duplicates among the hits at or above a likeness, and below it")
print("| likeness | at or above | below |")
print("|---|---|---|")
for threshold in stride(from: 0.3, through: 0.9, by: 0.1) {
    let above = similar.likeness.filter { $0.likeness >= threshold }
    let below = similar.likeness.filter { $0.likeness < threshold }
    func share(_ hits: [(likeness: Double, duplicate: Bool)]) -> String {
        let duplicates = hits.filter(\.duplicate).count
        return String(
            format: "%d of %d (%.0f%%)", duplicates, hits.count,
            hits.isEmpty ? 0 : 100 * Double(duplicates) / Double(hits.count))
    }
    print(String(format: "| %.1f | %@ | %@ |", threshold, share(above), share(below)))
}

if arguments.contains("--sweep") {
    print("\nsimilar across the number of words taken from the item and the feedback words' weight (R@10 / MRR@10):")
    for weight in [0.0, 0.15, 0.3, 0.5, 1.0] {
        var words = String(format: "feedback weight %.2f:", weight)
        for count in [16, 32, 64] {
            let scores = try run.spotliteSimilar(maxWords: count, feedbackWeight: weight).scores
            words += String(format: "  %d words %.3f/%.3f", count, scores.meanRecall, scores.meanReciprocalRank)
        }
        print(words)
    }
    let standard = SearchRanking.standard
    print("\ntitle OR across parameters (R@10 / MRR@10), the others as shipped:")
    for k1 in [0.9, 1.2, 1.6] {
        var row = String(format: "k1 %.1f:", k1)
        for b in [0.6, 0.75, 0.9] {
            var ranking = standard
            (ranking.k1, ranking.b) = (k1, b)
            let scores = try run.spotliteTitleOR(ranking: ranking)
            row += String(format: "  b %.2f %.3f/%.3f", b, scores.meanRecall, scores.meanReciprocalRank)
        }
        print(row)
    }
    for titleMatch in [0.0, 2.0, 4.0, 6.0, 8.0] {
        var row = String(format: "title similarity %.0f:", titleMatch)
        for bonus in [0.5, 0.75, 1.0, 1.5, 2.2] {
            var ranking = standard
            (ranking.titleBonus, ranking.titleMatch) = (bonus, titleMatch)
            let scores = try run.spotliteTitleOR(ranking: ranking)
            row += String(format: "  bonus %.2f %.3f/%.3f", bonus, scores.meanRecall, scores.meanReciprocalRank)
        }
        print(row)
    }
}

if arguments.contains("--check") {
    guard spotlite.meanRecall >= fts5.meanRecall, spotlite.meanReciprocalRank >= fts5.meanReciprocalRank else {
        print("relevance: Spotlite ranks below FTS5 on the dev set")
        exit(1)
    }
    // Only ties among bugs of the same text may order the two imports differently.
    guard abs(csvTitleOR.meanRecall - spotlite.meanRecall) <= 0.01,
        abs(csvTitleOR.meanReciprocalRank - spotlite.meanReciprocalRank) <= 0.01
    else {
        print("relevance: the bugs imported from Jira's CSV rank otherwise than the same bugs from JSON Lines")
        exit(1)
    }
    guard csvLinked.meanRecall >= csvSimilar.meanRecall, csvLinked.meanReciprocalRank >= csvSimilar.meanReciprocalRank
    else {
        print("relevance: ranking similar by known duplicate groups makes it worse on the dev set")
        exit(1)
    }
}

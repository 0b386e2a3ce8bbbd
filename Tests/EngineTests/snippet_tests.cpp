// snippet_tests.cpp — what snippets highlight: a phrase as the stored text has it, though the index (and the
// normalised query) hold each compound word followed by its parts.

#include "compounds.h"
#include "fixture.h"
#include "snippets.h"
#include "stemmer.h"

#include <doctest/doctest.h>

#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

using namespace engine_tests;

namespace {

const std::string text = "Disables a check. Uses 64-bit time_t in testsuite on 32-bit systems. Fixes rseq support.";

/// The snippet of `text` that `query` highlights, matched words between [ and ].
std::string snippet(const Xapian::Database &database, const Xapian::Query &query) {
    Xapian::Enquire enquire(database);
    enquire.set_query(query);
    const Xapian::MSet mset = enquire.get_mset(0, 0);
    return mset.snippet(text, 200, Xapian::Stem("english"), Xapian::MSet::SNIPPET_EXHAUSTIVE, "[", "]", "…");
}

/// `mset`, for cxapian::snippet().
cxapian::SnippetMatchSet of(const Xapian::MSet &mset) {
    return [&mset]() -> const Xapian::MSet & { return mset; };
}

Xapian::Query phrase(const std::vector<std::string> &terms) {
    return Xapian::Query(Xapian::Query::OP_PHRASE, terms.begin(), terms.end(), terms.size());
}

}  // namespace

TEST_CASE("a phrase holding a compound word's parts is highlighted where the text has it") {
    TempIndex index;
    index.add({"Glibc", text});
    index.commit();
    const Xapian::Query indexed = phrase({"64", "bit", "time_t", "time", "t", "in"});
    // The hazard: the text never has "time_t time t", so the phrase as indexed highlights nothing.
    CHECK(snippet(index.writable(), indexed).find('[') == std::string::npos);
    CHECK(snippet(index.writable(), cxapian::phrases_as_written(indexed)).find("[64-bit time_t in]") !=
          std::string::npos);
    // In the title field too (prefixed terms), and with several compounds.
    const Xapian::Query title = phrase({"Shadoop_conf_dir", "Shadoop", "Sconf", "Sdir", "Snativeazurefs", "Snative",
                                        "Sazure", "Sfs"});
    const Xapian::Query written = cxapian::phrases_as_written(title);
    CHECK(written.get_description() == "Query((Shadoop_conf_dir PHRASE 2 Snativeazurefs))");
    // Where the parser puts a phrase: the detail's and the title's, ORed, within the rest of the query.
    const Xapian::Query both(Xapian::Query::OP_AND, Xapian::Query(Xapian::Query::OP_OR, indexed, title),
                             Xapian::Query("Zsystem"));
    CHECK(cxapian::phrases_as_written(both).get_description() ==
          "Query((((64 PHRASE 4 bit PHRASE 4 time_t PHRASE 4 in) OR (Shadoop_conf_dir PHRASE 2 Snativeazurefs)) AND "
          "Zsystem))");
}

TEST_CASE("a phrase without compound parts, or a word not spelled out by what follows, is left as it is") {
    for (const Xapian::Query &query :
         {phrase({"in", "testsuite", "on"}), phrase({"time_t", "time", "x"}), phrase({"ab", "a"}),
          Xapian::Query(Xapian::Query::OP_AND, Xapian::Query("time_t"), Xapian::Query("time"))}) {
        CHECK(cxapian::phrases_as_written(query).get_description() == query.get_description());
    }
}

TEST_CASE("a snippet highlights the same words with the snippet stemmer as with Snowball's") {
    TempIndex index;
    index.add({"Glibc", text});
    index.commit();
    auto *implementation = new cxapian::SnippetStemmer();
    const Xapian::Stem stemmer(implementation);
    const std::vector<Xapian::Query> queries = {
        Xapian::Query("Zdisabl"),  // "Disables" by its stem only
        Xapian::Query(Xapian::Query::OP_OR, Xapian::Query("Zfix"), Xapian::Query("Zsystem")),
        Xapian::Query(Xapian::Query::OP_AND, Xapian::Query("uses"), Xapian::Query("Zcheck")),
        phrase({"rseq", "support"}), Xapian::Query("Znowher")};
    for (const auto &query : queries) {
        Xapian::Enquire enquire(index.writable());
        enquire.set_query(query);
        const Xapian::MSet mset = enquire.get_mset(0, 0);
        implementation->set_initials(cxapian::snippet_terms(query).stem_initials);
        const std::string expected = snippet(index.writable(), query);
        CHECK(mset.snippet(text, 200, stemmer, Xapian::MSet::SNIPPET_EXHAUSTIVE, "[", "]", "…") == expected);
    }
    // The stems were found: "Disables" and "Fixes", "systems" each highlighted.
    CHECK(snippet(index.writable(), queries[0]).find("[Disables]") != std::string::npos);
    CHECK(snippet(index.writable(), queries[1]).find("[Fixes]") != std::string::npos);
    CHECK(snippet(index.writable(), queries[1]).find("[systems]") != std::string::npos);
}

namespace {

/// A text of `words` words drawn from what makes a snippet's walk differ: words a query highlights (as written, by
/// their stems, in capitals, in a phrase), others beginning as they do, punctuation that Xapian's tokenizer keeps in
/// a word or ends a sentence with, and words of other scripts (CJK split into n-grams, U+0130 and U+212A lowercased
/// to ASCII).
std::string random_text(std::mt19937 &random, unsigned words) {
    static const std::vector<std::string> highlighted = {
        "check", "checks", "Checking", "CHECK", "run", "running", "Runs", "ran", "rseq", "support", "the rseq",
        "café", "Über", "İstanbul", "\u212Aelvin", "kelvin", "中文字", "qwertyuiop", "check's", "check&run",
        "check_run", "CHECK.", "C.H.E.C.K", "Checked+", "run#", "checking,", "R.S.E.Q.", "support;", "3.14check"};
    static const std::vector<std::string> others = {
        "supper", "cheap", "rust", "the", "a", "of", "time_t", "64-bit", "AT&T", "U.S.A.", "C++", "don't", "3.14",
        "x_y", "systems", "Fixes", "disables", "connection", "wordy", "an", "to", "Kernel", "istanbulite", "xcheck",
        "cheaper", "Runner", "supported", "rs", "checkmate", "kelvins", "cafés",
        // Words longer than the 64 bytes beyond which the snippet passes over a word, plain or joined.
        std::string(70, 'q'), "joined_" + std::string(60, 'q'), "é" + std::string(64, 'q')};
    static const std::vector<std::string> separators = {" ",   " ",  " ",   "  ", "\n",  ". ",   ", ", "! ", "... ",
                                                        " (",  ") ", "\"",  " -- ", "/", "—",  "\t", " ", "?\n"};
    // Highlighted words one in `sparse`: several windows apart, or crowded.
    const unsigned sparse = 1 + random() % 40;
    std::string text;
    for (unsigned i = 0; i < words; ++i) {
        const auto &from = random() % sparse == 0 ? highlighted : others;
        text += from[random() % from.size()];
        text += separators[random() % separators.size()];
    }
    return text;
}

}  // namespace

TEST_CASE("a snippet walked over its part of the text is the whole text's snippet") {
    TempIndex index;
    std::mt19937 random(20261129);
    for (int i = 0; i < 50; ++i) index.add({"Title", random_text(random, 40)});
    index.commit();
    auto *implementation = new cxapian::SnippetStemmer();
    const Xapian::Stem stemmer(implementation);
    const std::vector<Xapian::Query> queries = {
        Xapian::Query(Xapian::Query::OP_OR, Xapian::Query("Zcheck"), Xapian::Query("Zrun")),
        Xapian::Query(Xapian::Query::OP_AND, Xapian::Query("checks"), Xapian::Query("Zsupport")),
        phrase({"rseq", "support"}),
        Xapian::Query(Xapian::Query::OP_OR, phrase({"the", "rseq"}), Xapian::Query("Zfix")),
        Xapian::Query("café"),
        Xapian::Query("Zistanbul"),
        Xapian::Query("kelvin"),
        Xapian::Query("中文"),
        Xapian::Query("Scheck"),  // a title's term: no word of a detail is it
        Xapian::Query("qwertyuiop"),
        Xapian::Query(Xapian::Query::OP_OR, Xapian::Query("check"), Xapian::Query("rs")),
        Xapian::Query(Xapian::Query::OP_OR, Xapian::Query("über"), Xapian::Query("Zrun")),
        Xapian::Query(Xapian::Query::OP_OR, Xapian::Query("中文"), Xapian::Query("Zcheck")),
    };
    const unsigned flags = Xapian::MSet::SNIPPET_EXHAUSTIVE | Xapian::MSet::SNIPPET_CJK_NGRAM;
    size_t cut = 0;
    size_t compared = 0;
    for (const auto &query : queries) {
        Xapian::Enquire enquire(index.writable());
        enquire.set_query(query);
        const Xapian::MSet mset = enquire.get_mset(0, 0);
        const cxapian::SnippetTerms terms = cxapian::snippet_terms(query);
        implementation->set_initials(terms.stem_initials);
        for (int round = 0; round < 300; ++round) {
            const std::string text = random_text(random, 5 + random() % 250);
            const size_t length = std::vector<size_t>{20, 60, 160}[random() % 3];
            const auto [from, to] = cxapian::snippet_span(text, terms, stemmer, length);
            if (from > 0 || to < text.size()) ++cut;
            const std::string whole = mset.snippet(text, length, stemmer, flags, "[", "]", "…");
            INFO("query ", query.get_description(), ", length ", length, ", text: ", text);
            CHECK(cxapian::snippet(of(mset), terms, text, length, stemmer, "[", "]", "…") == whole);
            ++compared;
        }
    }
    // Many texts were cut (else the comparison above tells nothing).
    CHECK(cut * 4 > compared);
}

TEST_CASE("a snippet's part of a long text is around the words it can highlight") {
    std::string text;
    for (int i = 0; i < 200; ++i) text += "cheap ";  // words beginning as "check" does are not it
    const size_t at = text.size();
    text += "Check the rest. ";
    for (int i = 0; i < 200; ++i) text += "cheap ";
    const Xapian::Stem stemmer("english");
    const cxapian::SnippetTerms terms = cxapian::snippet_terms(Xapian::Query("Zcheck"));
    const auto [from, to] = cxapian::snippet_span(text, terms, stemmer, 160);
    // From a word at least 162 bytes (the window and the space before a word) before "Check", to one as far after it.
    CHECK(from <= at - 162);
    CHECK(from > at - 162 - 6);
    CHECK(to >= at + 5 + 162);
    CHECK(to < at + 5 + 162 + 6);
    CHECK(text[from - 1] == ' ');
    CHECK(text[to - 1] == ' ');
    // A word holding the term inside it is not the term; one that Xapian's tokenizer may read otherwise is taken to be.
    // With no word to highlight, the snippet is the last window: the part is the text's last 162 bytes or so.
    const std::string unmatched = "xcheck " + text.substr(0, 1000);
    const auto last = cxapian::snippet_span(unmatched, terms, stemmer, 160);
    CHECK(last == cxapian::tail_span(unmatched, 160));
    CHECK(last.second == unmatched.size());
    CHECK(last.first <= unmatched.size() - 1 - 162);  // before the last word's end, less the window
    CHECK(last.first > unmatched.size() - 1 - 162 - 7);
    const std::string joined = text.substr(0, 600) + "cheap&check " + text.substr(0, 600);
    CHECK(cxapian::snippet_span(joined, terms, stemmer, 160).first > 400);
    // A query whose terms are not all known (a wildcard's pattern is none) walks the whole text.
    CHECK(cxapian::snippet_span(text, cxapian::snippet_terms(Xapian::Query(Xapian::Query::OP_WILDCARD, "che")), stemmer,
                                160) == std::pair<size_t, size_t>(0, text.size()));
}

TEST_CASE("a snippet walked over its part of the text is the whole text's snippet, at every alignment") {
    TempIndex index;
    index.add({"Title", "ab check cd"});
    index.commit();
    auto *implementation = new cxapian::SnippetStemmer();
    const Xapian::Stem stemmer(implementation);
    // A word of one letter is where a cut's margin is tightest: the window fills as soon as it enters.
    const Xapian::Query query(Xapian::Query::OP_OR, Xapian::Query("Zcheck"), Xapian::Query("x"));
    Xapian::Enquire enquire(index.writable());
    enquire.set_query(query);
    const Xapian::MSet mset = enquire.get_mset(0, 0);
    const cxapian::SnippetTerms terms = cxapian::snippet_terms(query);
    implementation->set_initials(terms.stem_initials);
    const unsigned flags = Xapian::MSet::SNIPPET_EXHAUSTIVE | Xapian::MSet::SNIPPET_CJK_NGRAM;
    // The word to highlight moved a byte at a time against the window's length and the words around it: a part
    // cut a byte too close to it on either side gives another snippet.
    for (const std::string word : {"X", "Check"}) {
        for (const std::string separator : {" ", ". "}) {
            for (size_t length = 8; length <= 20; ++length) {
                for (size_t lead = 1; lead <= 6; ++lead) {
                    for (int before = 0; before <= 10; ++before) {
                        for (int after = 0; after <= 10; ++after) {
                            // Words around, so that the text is longer than the two windows walked whole.
                            std::string text;
                            for (int i = 0; i < 8; ++i) text += "zz" + separator;
                            text += std::string(lead, 'w') + separator;
                            for (int i = 0; i < before; ++i) text += "ab" + separator;
                            text += word;
                            for (int i = 0; i < after; ++i) text += separator + "cd";
                            for (int i = 0; i < 8; ++i) text += separator + "yy";
                            const std::string whole = mset.snippet(text, length, stemmer, flags, "[", "]", "…");
                            INFO("length ", length, ", text: ", text);
                            CHECK(cxapian::snippet(of(mset), terms, text, length, stemmer, "[", "]", "…") == whole);
                        }
                    }
                }
            }
        }
    }
}

namespace {

/// An ASCII text of `words` words drawn from what Xapian's tokenizer and snippet treat apart: acronyms, infixes
/// and suffixes that join or do not, words over 64 bytes, every kind of punctuation before and after a word,
/// sentence ends, control characters, and the words the queries below highlight (as written, by their stems, in a
/// phrase), crowded or sparse.
std::string ascii_text(std::mt19937 &random, unsigned words) {
    static const std::vector<std::string> highlighted = {
        "check", "checks", "Checking", "CHECK", "run", "running", "Runs", "rseq", "support", "rseq support",
        "the rseq support", "time", "bit", "C.H.E.C.K", "check's", "check&run", "check_run", "checked+", "run#",
        "checking,", "R.S.E.Q.", "support;", "3.14check", "check++", "check++++", "check+x", "CHECK."};
    static const std::vector<std::string> others = {
        "supper", "cheap", "rust", "the", "a", "of", "time_t", "64-bit", "AT&T", "U.S.A.", "U.S.A", "U.Sx", "A.b",
        "P.T.O.", "C++", "C#", "C+++", "c++x", "fish+chips", "a#b", "don't", "don'", "3.14", "1,000", "3;4", "3.x",
        "x.3", "a&&b", "x_y", "_x", "x__", "systems", "Fixes", "an", "to", "Kernel", "xcheck", "cheaper", "Runner",
        "supported", "rs", "$5", "100%", "e-mail", "I", "A", "Q.", std::string(64, 'q'), std::string(65, 'q'),
        "joined_" + std::string(60, 'q'), std::string(30, 'w') + "&" + std::string(40, 'w')};
    static const std::vector<std::string> separators = {
        " ",   " ",    " ",      "  ", "\n", ". ",  ", ", "! ", "... ", " (", ") ", "\"", " -- ", "/",    "\t",
        "?\n", " [\"", "\"] ",   " <", "> ", "&",   "'",  " `", "~",    "@",  "\\", " {", "} ",   "$",    "%",
        "+",   "#",    "))))) ", " ((((((", "\x01", "\x7f", ".", "?!? ", " ;: ", "*", "^", "=", "|", "- ", " -"};
    const unsigned sparse = 1 + random() % 30;
    std::string text;
    if (random() % 4 == 0) text += separators[random() % separators.size()];
    for (unsigned i = 0; i < words; ++i) {
        const auto &from = random() % sparse == 0 ? highlighted : others;
        text += from[random() % from.size()];
        if (i + 1 < words || random() % 2) text += separators[random() % separators.size()];
    }
    return text;
}

Xapian::Query windowed(Xapian::Query::op op, const std::vector<std::string> &terms, Xapian::termcount window) {
    return Xapian::Query(op, terms.begin(), terms.end(), window);
}

}  // namespace

TEST_CASE("an ASCII text's snippet written here is Xapian's, byte for byte") {
    TempIndex index;
    std::mt19937 random(20261202);
    // Documents holding the queries' terms unevenly, which a weightless match's statistics do not weigh.
    for (int i = 0; i < 60; ++i) index.add({"Title", ascii_text(random, 10 + random() % 60)});
    index.commit();
    auto *implementation = new cxapian::SnippetStemmer();
    const Xapian::Stem stemmer(implementation);
    using Q = Xapian::Query;
    const std::vector<Q> queries = {
        Q("check"),
        Q("Zcheck"),
        Q(Q::OP_OR, Q("Zcheck"), Q("Zrun")),
        Q(Q::OP_AND, Q("checks"), Q("Zsupport")),
        Q(Q::OP_OR, Q("check"), Q("Zcheck")),
        phrase({"rseq", "support"}),
        phrase({"the", "rseq", "support"}),
        Q(Q::OP_OR, phrase({"rseq", "support"}), phrase({"the", "rseq", "support"})),  // phrases of two lengths
        Q(Q::OP_OR, phrase({"the", "rseq", "support"}), Q(Q::OP_OR, phrase({"rseq", "support"}), Q("Zrun"))),
        windowed(Q::OP_PHRASE, {"rseq", "support"}, 4),  // not tight: its terms are loose
        windowed(Q::OP_NEAR, {"check", "run"}, 3),
        Q(Q::OP_AND_MAYBE, Q("Zcheck"), phrase({"time", "bit"})),
        Q(Q::OP_OR, Q("usa"), Q("pto")),  // acronyms
        Q(Q::OP_OR, Q("c++"), Q("c#")),
        Q(Q::OP_OR, Q("at&t"), Q("don't")),
        Q(Q::OP_OR, Q("3.14"), Q("1,000")),
        Q(Q::OP_OR, Q("time_t"), Q("Ztime")),
        Q(Q::OP_OR, Q("qwertyuiop"), Q("Zcheck")),  // a term no document holds weighs nothing
        Q("Scheck"),                                // a title's term: no word of a text is it
        Q(Q::OP_OR, Q("Scheck"), Q("rust")),
    };
    const unsigned flags = Xapian::MSet::SNIPPET_EXHAUSTIVE | Xapian::MSet::SNIPPET_CJK_NGRAM;
    size_t highlighted = 0;
    size_t compared = 0;
    // Each query's snippets from a weightless match (the one snippets come from), two ways: from the weights known
    // from the query alone, which must be the match's, and from Xapian. Also over an index that holds none of the
    // terms (a word the index does not know yet is still highlighted, as Xapian highlights it).
    TempIndex empty;
    empty.commit();
    for (const auto &query : queries) {
        const bool over_empty = (&query - queries.data()) % 4 == 3;
        Xapian::Enquire enquire(over_empty ? empty.writable() : index.writable());
        enquire.set_query(query);
        enquire.set_weighting_scheme(Xapian::BoolWeight());
        const Xapian::MSet mset = enquire.get_mset(0, 0);
        const cxapian::SnippetWeights weights = cxapian::snippet_weights(query);
        REQUIRE(weights.usable);
        const cxapian::SnippetTerms terms = cxapian::snippet_terms(query);
        implementation->set_initials(terms.stem_initials);
        for (int round = 0; round < 500; ++round) {
            const std::string text = ascii_text(random, 1 + random() % 120);
            const size_t length = std::vector<size_t>{1, 5, 20, 60, 160, 300}[random() % 6];
            const std::string omit = std::vector<std::string>{"…", "", "..."}[random() % 3];
            const std::string expected = mset.snippet(text, length, stemmer, flags, "[", "]", omit);
            INFO("query ", query.get_description(), over_empty ? " over no terms" : "", ", length ", length,
                 ", omit '", omit, "', text: ", text);
            CHECK(cxapian::ascii_snippet(weights, text, length, stemmer, "[", "]", omit) == expected);
            CHECK(cxapian::snippet(of(mset), terms, text, length, stemmer, "[", "]", omit, &weights) == expected);
            if (expected.find('[') != std::string::npos) ++highlighted;
            ++compared;
        }
    }
    // Many texts had a word highlighted, and many did not (else the comparison above tells less than it seems).
    CHECK(highlighted * 3 > compared);
    CHECK(highlighted * 20 < compared * 19);
}

TEST_CASE("a snippet is Xapian's where it cannot be written here: a byte above 0x7F, a wildcard") {
    TempIndex index;
    index.add({"Title", "check the café"});
    index.commit();
    const Xapian::Query query(Xapian::Query::OP_OR, Xapian::Query("check"), Xapian::Query("café"));
    const cxapian::SnippetWeights weights = cxapian::snippet_weights(query);
    const Xapian::Stem stemmer("english");
    CHECK(!cxapian::ascii_snippet(weights, "a check of the café", 20, stemmer, "[", "]", "…"));
    const auto ascii = cxapian::ascii_snippet(weights, "a check of the cafe", 20, stemmer, "[", "]", "…");
    CHECK(ascii == std::optional<std::string>("a [check] of the cafe"));
    const Xapian::Query wildcard(Xapian::Query::OP_WILDCARD, "che");
    CHECK(!cxapian::snippet_weights(wildcard).usable);
    // No highlight asked for: Xapian gives a short text back as it is.
    CHECK(!cxapian::ascii_snippet(weights, "a check", 20, stemmer, "", "", "…"));
}

// snippet_tests.cpp — what snippets highlight: a phrase as the stored text has it, though the index (and the
// normalised query) hold each compound word followed by its parts.

#include "compounds.h"
#include "fixture.h"
#include "stemmer.h"

#include <doctest/doctest.h>

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
        implementation->set_initials(cxapian::stem_initials(query));
        const std::string expected = snippet(index.writable(), query);
        CHECK(mset.snippet(text, 200, stemmer, Xapian::MSet::SNIPPET_EXHAUSTIVE, "[", "]", "…") == expected);
    }
    // The stems were found: "Disables" and "Fixes", "systems" each highlighted.
    CHECK(snippet(index.writable(), queries[0]).find("[Disables]") != std::string::npos);
    CHECK(snippet(index.writable(), queries[1]).find("[Fixes]") != std::string::npos);
    CHECK(snippet(index.writable(), queries[1]).find("[systems]") != std::string::npos);
}

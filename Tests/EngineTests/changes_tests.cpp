// changes_tests.cpp — the documents each commit wrote (RecordingWriter, changed_since), and the readers' tables
// patched with them.

#include "fixture.h"

#include "kept_tables.h"
#include "slot_values.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <optional>

using namespace engine_tests;

namespace {

using Docids = std::vector<Xapian::docid>;

/// What changed_since gives for `index` since `since`, or nullopt when it does not know.
std::optional<Docids> changes(const TempIndex &index, Xapian::rev since) {
    Docids changed;
    if (!cxapian::changed_since(Xapian::Database(index.path()), since, changed)) return std::nullopt;
    return changed;
}

Xapian::rev revision(const TempIndex &index) { return Xapian::Database(index.path()).get_revision(); }

Item edited(unsigned number, unsigned round) {
    return {"edited title " + std::to_string(number) + (round % 2 ? " with more words" : ""),
            "the detail after round " + std::to_string(round) + " memory leak" + std::string(number % 5, '!'),
            double(1700000000 + number * 7 + round), number % 2 ? "open" : "closed"};
}

}  // namespace

TEST_CASE("each commit records the documents it wrote, and a reader learns them from any revision recorded since") {
    TempIndex index(nullptr, nullptr, true);
    for (const Item &item : corpus(40)) index.add(item);
    index.commit();
    const Xapian::rev first = revision(index);
    CHECK(changes(index, first) == Docids{});

    index.replace(3, edited(3, 1));
    index.remove(5);
    const Xapian::docid added = index.add(edited(41, 1));
    index.commit();
    CHECK(revision(index) == first + 1);  // the record names the revision the commit makes
    CHECK(changes(index, first) == Docids{3, 5, added});

    // A cancelled transaction's documents are not listed; a committed one's are, as a commit of its own.
    index.writer().begin_transaction(true);
    index.replace(7, edited(7, 2));
    index.writer().cancel_transaction();
    index.replace(9, edited(9, 2));
    index.writer().begin_transaction(true);  // commits document 9 first
    index.replace(11, edited(11, 2));
    index.writer().commit_transaction();
    CHECK(revision(index) == first + 3);
    CHECK(changes(index, first + 2) == Docids{11});
    CHECK(changes(index, first + 1) == Docids{9, 11});
    CHECK(changes(index, first) == Docids{3, 5, 9, 11, added});

    // Replacing by a term that two documents hold deletes the second: both are listed.
    Xapian::Document twin;
    twin.add_boolean_term(unique_prefix + "13");
    index.writable().add_document(twin);  // written around the writer, committed by the next recorded commit
    index.writer().changed();
    index.commit();
    const Xapian::docid twin_did = Xapian::Database(index.path()).get_lastdocid();
    index.replace(13, edited(13, 3));
    index.commit();
    CHECK(changes(index, first + 4) == Docids{13, twin_did});

    // A commit no record names leaves a gap: revisions before it learn nothing, revisions after it do.
    const Xapian::rev before_gap = revision(index);
    index.writable().delete_document(15);
    index.writable().commit();
    CHECK(changes(index, before_gap) == std::nullopt);
    index.replace(17, edited(17, 4));
    index.commit();
    CHECK(changes(index, before_gap) == std::nullopt);
    CHECK(changes(index, before_gap + 1) == Docids{17});

    // A commit of too many documents to list.
    const Xapian::rev before_many = revision(index);
    for (size_t i = 0; i <= cxapian::RecordingWriter::most_listed; ++i) index.add(Item{"many", "many"});
    index.commit();
    CHECK(changes(index, before_many) == std::nullopt);
    index.replace(19, edited(19, 5));
    index.commit();
    CHECK(changes(index, before_many + 1) == Docids{19});

    // A revision older than the records kept.
    const Xapian::rev oldest = revision(index);
    for (size_t i = 0; i <= cxapian::RecordingWriter::most_records; ++i) {
        index.replace(21, edited(21, unsigned(i)));
        index.commit();
    }
    CHECK(changes(index, oldest) == std::nullopt);
    CHECK(changes(index, oldest + 1) == Docids{21});

    // Records that do not parse (written around the writer) are trusted for nothing, and the next commit records
    // afresh.
    const Xapian::rev before_damage = revision(index);
    index.writable().set_metadata(cxapian::RecordingWriter::key, std::string("\x24garbage", 8));
    index.writable().commit();
    index.replace(23, edited(23, 6));
    index.commit();
    CHECK(changes(index, before_damage) == std::nullopt);
    CHECK(changes(index, before_damage + 1) == Docids{23});
    CHECK(changes(index, revision(index) + 1) == std::nullopt);  // a revision the database has not reached
}

TEST_CASE("a compacted copy trusts none of its source's records, and records its own commits afresh") {
    TempIndex index(nullptr, nullptr, true);
    for (const Item &item : corpus(30)) index.add(item);
    index.commit();
    index.replace(2, edited(2, 1));
    index.commit();
    const std::string copy = index.path() + "-copy";
    Xapian::Database(index.path()).compact(copy, Xapian::DB_BACKEND_GLASS);
    Xapian::rev copied = 0;
    {
        Xapian::Database database(copy);
        copied = database.get_revision();
        Docids changed;
        CHECK(database.get_uuid() != Xapian::Database(index.path()).get_uuid());
        CHECK_FALSE(cxapian::changed_since(database, copied - 1, changed));
    }
    {
        cxapian::RecordingWriter writer(Xapian::WritableDatabase(copy, Xapian::DB_OPEN | Xapian::DB_BACKEND_GLASS));
        Xapian::Document document;
        document.add_boolean_term(unique_prefix + "4");
        const Xapian::docid did = writer.replace(unique_prefix + "4", document);
        writer.commit();
        Docids changed;
        REQUIRE(cxapian::changed_since(Xapian::Database(copy), copied, changed));
        CHECK(changed == Docids{did});
        writer.database().close();
    }
    std::error_code ignored;
    std::filesystem::remove_all(copy, ignored);
}

TEST_CASE("a table patched with the documents written since is the table read whole") {
    TempIndex index(nullptr, nullptr, true);
    std::vector<Item> items = corpus(300);
    Item long_one{"long", ""};
    for (size_t i = 0; i <= cxapian::max_packed_positions; ++i) long_one.detail += "word ";
    items.push_back(long_one);
    for (const Item &item : items) index.add(item);
    index.commit();
    const Xapian::Database before(index.path());
    const cxapian::DocLengths lengths(before);
    const cxapian::TitleWords title_words(before, title_words_slot);
    const auto values = cxapian::SlotValues::read(before, modified_slot);
    const auto ordered_values = cxapian::SlotValues::read(before, modified_slot);
    const cxapian::PositionsTable positions(before);
    const cxapian::DocumentBytes slot_bytes(before, modified_slot, size_t(1) << 20);
    REQUIRE(values != nullptr);
    REQUIRE(slot_bytes.complete());
    REQUIRE(ordered_values != nullptr);
    ordered_values->by_value();  // its order made: the patch merges into it
    REQUIRE(positions.complete());

    // Two commits: documents replaced (longer, shorter, new titles and dates), deleted, added (one past the
    // packing's limit), and an added one replaced again.
    for (unsigned number = 1; number <= 300; number += 13) index.replace(number, edited(number, 1));
    for (unsigned number = 4; number <= 300; number += 29) index.remove(number);
    index.commit();
    for (unsigned number = 302; number < 330; ++number) index.add(edited(number, 2));
    index.add(long_one);
    index.replace(305, edited(305, 3));
    index.remove(2);
    // Dates among the unchanged documents' (0–39, many ties): placed between them, before and after by docid.
    for (unsigned number = 150; number < 170; ++number) {
        Item tied = edited(number, 3);
        tied.modified = double(number % 40);
        index.replace(number, tied);
    }
    index.commit();

    const Xapian::Database after(index.path());
    Docids changed;
    REQUIRE(cxapian::changed_since(after, before.get_revision(), changed));
    CHECK(changed.size() == 24 + 11 + 29 + 1 + 20 - 1);  // 150..169, of which 157 was edited already
    const cxapian::DocLengths patched_lengths(lengths, after, changed);
    const cxapian::DocLengths read_lengths(after);
    const cxapian::TitleWords patched_words(title_words, after, title_words_slot, changed);
    const cxapian::TitleWords read_words(after, title_words_slot);
    const auto patched_values = cxapian::SlotValues::patched(*values, after, modified_slot, changed);
    const auto patched_order = cxapian::SlotValues::patched(*ordered_values, after, modified_slot, changed);
    const auto read_values = cxapian::SlotValues::read(after, modified_slot);
    const cxapian::PositionsTable patched_positions(positions, after, changed);
    const cxapian::PositionsTable read_positions(after);
    const cxapian::DocumentBytes patched_slot_bytes(slot_bytes, after, changed);
    const cxapian::DocumentBytes read_slot_bytes(after, modified_slot, size_t(1) << 20);
    REQUIRE(patched_slot_bytes.complete());
    REQUIRE(read_slot_bytes.complete());
    REQUIRE(patched_values != nullptr);
    REQUIRE(read_values != nullptr);
    REQUIRE(patched_positions.complete());
    CHECK(patched_lengths.revision() == after.get_revision());
    CHECK(patched_words.revision() == after.get_revision());
    CHECK(patched_values->revision() == after.get_revision());
    CHECK(patched_positions.revision() == after.get_revision());

    size_t differ = 0;  // entries the changes moved: the comparison is of something
    for (Xapian::docid did = 0; did <= after.get_lastdocid() + 2; ++did) {
        CAPTURE(did);
        CHECK(patched_lengths.length(did) == read_lengths.length(did));
        CHECK(patched_words.count(did) == read_words.count(did));
        CHECK(patched_values->value(did) == read_values->value(did));
        CHECK(patched_positions.positions(did) == read_positions.positions(did));
        CHECK(patched_slot_bytes.bytes(did) == read_slot_bytes.bytes(did));
        const auto document = did >= 1 ? cxapian::document_if_any(after, did) : std::nullopt;
        CHECK(read_slot_bytes.bytes(did) == (document ? document->get_value(modified_slot) : std::string()));
        const bool moved = lengths.length(did) != read_lengths.length(did) ||
                           positions.positions(did) != read_positions.positions(did);
        if (moved) ++differ;
    }
    CHECK(differ >= changed.size() - 1);  // all but the long one added, whose positions stay Xapian's
    CHECK(patched_values->valued() == read_values->valued());
    CHECK(patched_values->docid_limit() == read_values->docid_limit());
    CHECK(patched_values->by_value() == read_values->by_value());
    // The order patched: there at once (no second ask), and the order sorted anew.
    REQUIRE(patched_order != nullptr);
    REQUIRE(patched_order->by_value_if_asked_again() != nullptr);
    CHECK(*patched_order->by_value_if_asked_again() == read_values->by_value());
    CHECK(values->by_value() != read_values->by_value());  // the changes moved documents in the order
}

TEST_CASE("a table's order by value is made on the table maker's thread, not in the search that asks for it") {
    TempIndex index(nullptr, nullptr, true);
    for (const Item &item : corpus(500)) index.add(item);
    index.commit();
    const Xapian::Database database(index.path());
    const auto values = cxapian::SlotValues::read(database, modified_slot);
    REQUIRE(values != nullptr);
    CHECK(values->by_value_if_asked_again() == nullptr);  // the first ask: not worth an order yet
    CHECK(values->by_value_if_asked_again() == nullptr);  // the second: asked of the maker, not sorted here
    cxapian::TableMaker::wait();
    const std::vector<Xapian::docid> *order = values->by_value_if_asked_again();
    REQUIRE(order != nullptr);
    CHECK(order->size() == database.get_lastdocid());
    // The order a sort by the slot gives: (value, docid), every docid once.
    for (size_t i = 1; i < order->size(); ++i) {
        const auto earlier = values->value((*order)[i - 1]), later = values->value((*order)[i]);
        CHECK((earlier < later || (earlier == later && (*order)[i - 1] < (*order)[i])));
    }
}

TEST_CASE("a patched positions table makes anew only the runs of docids written since, and shares the others") {
    TempIndex index(nullptr, nullptr, true);
    const Xapian::docid size = cxapian::PositionsTable::run_size;
    for (const Item &item : corpus(2 * size + 100)) index.add(item);
    index.commit();
    const Xapian::Database before(index.path());
    const cxapian::PositionsTable positions(before);
    REQUIRE(positions.complete());
    CHECK(positions.shared_runs() == 0);

    // Written: one document of the second run, and the last run grown past its end into a fourth.
    index.replace(size + 7, edited(size + 7, 1));
    for (Xapian::docid did = 2 * size + 101; did <= 3 * size + 5; ++did) index.add(edited(did, 1));
    index.commit();
    const Xapian::Database after(index.path());
    Docids changed;
    REQUIRE(cxapian::changed_since(after, before.get_revision(), changed));
    const cxapian::PositionsTable patched(positions, after, changed);
    const cxapian::PositionsTable read(after);
    REQUIRE(patched.complete());
    CHECK(patched.shared_runs() == 1);  // the first run: no document of it was written
    size_t with_positions = 0;
    for (Xapian::docid did = 0; did <= after.get_lastdocid() + 2; ++did) {
        CAPTURE(did);
        CHECK(patched.positions(did) == read.positions(did));
        if (!read.positions(did).empty()) ++with_positions;
    }
    CHECK(with_positions == after.get_doccount());
    CHECK(patched.positions(size + 7) != positions.positions(size + 7));
    // Each docid listed twice: the same table.
    Docids doubled;
    for (const Xapian::docid did : changed) doubled.insert(doubled.end(), {did, did});
    const cxapian::PositionsTable from_doubled(positions, after, doubled);
    REQUIRE(from_doubled.complete());
    for (Xapian::docid did = 0; did <= after.get_lastdocid(); ++did) {
        CAPTURE(did);
        CHECK(from_doubled.positions(did) == read.positions(did));
    }

    // A table patched from that one, nothing written since: every run shared.
    const cxapian::PositionsTable again(patched, after, Docids{});
    CHECK(again.shared_runs() == 4);
    CHECK(again.positions(size + 7) == read.positions(size + 7));
}

TEST_CASE("a long-lived reader's tables follow the index: each revision's patched from the last, at its first search") {
    TempIndex index(nullptr, nullptr, true);
    for (const Item &item : corpus(400)) index.add(item);
    index.commit();
    auto reader = index.reader();
    auto plain = index.reader();
    struct Case {
        std::string text;
        bool sorted;
    };
    const std::vector<Case> cases = {{"leak OR crash", false}, {"\"memory leak\"", false}, {"the", true}};
    auto options_for = [](const Case &test, bool kept) {
        cxapian::MatchOptions options = ranked_options();
        options.layout.title_prefix = title_prefix;
        options.layout.positions_key = packed_positions.key;
        if (test.sorted) options.sort_keys = {{modified_slot, true}};
        options.kept_tables = kept;
        return options;
    };
    auto expect_same = [&](const char *when) {
        for (const Case &test : cases) {
            CAPTURE(when);
            CAPTURE(test.text);
            const auto expected = run(*plain, parse(test.text), options_for(test, false));
            const auto got = run(*reader, parse(test.text), options_for(test, true));
            CHECK(hits(*got) == hits(*expected));
            CHECK(got->estimated == expected->estimated);
        }
    };
    auto tables_made = [&] {
        return reader->doc_lengths.tables_made() + reader->title_words.tables_made() +
               reader->slot_values.tables_made() + reader->positions.tables_made();
    };
    // The first revision's tables are read whole, asked for at its second search.
    run(*reader, parse(cases[0].text), options_for(cases[0], true));
    cxapian::TableMaker::wait();
    CHECK(tables_made() == 0);
    for (int search = 0; search < 2; ++search) {
        expect_same("first revision");
        cxapian::TableMaker::wait();
    }
    const uint64_t tables = tables_made();
    CHECK(tables == 4);  // lengths, title words, the modified dates, the packed positions
    expect_same("first revision, the tables made");

    for (unsigned round = 1; round <= 3; ++round) {
        CAPTURE(round);
        for (unsigned number = round; number <= 400; number += 17) index.replace(number, edited(number, round));
        index.remove(round * 11);
        index.add(edited(400 + round, round));
        index.commit();
        reader->database.reopen();
        plain->database.reopen();
        expect_same("a new revision, first search");  // asks for each table, patched from the last revision's
        cxapian::TableMaker::wait();
        CHECK(tables_made() == tables * (round + 1));
        expect_same("a new revision, the patched tables made");
    }
}

TEST_CASE("a table found not to fit is not read again at the database's next revisions, but for another database") {
    TempIndex index;
    for (const Item &item : corpus(50)) index.add(item);
    index.commit();
    auto reader = index.reader();
    cxapian::RevisionTableCache<cxapian::DocLengths> cache;
    int reads = 0;
    auto search = [&](cxapian::Reader &at) {
        cache.get(
            at.database, "test: unfit", at.path,
            [&reads](const Xapian::Database &) {
                ++reads;
                return std::shared_ptr<const cxapian::DocLengths>();  // does not fit
            },
            [](const cxapian::DocLengths &previous, const Xapian::Database &db, const Docids &changed) {
                return std::make_shared<const cxapian::DocLengths>(previous, db, changed);
            });
        cxapian::TableMaker::wait();
    };
    for (int round = 0; round < 3; ++round) {
        search(*reader);
        search(*reader);
        CHECK(reads == 1);
        index.replace(1, edited(1, unsigned(round)));
        index.commit();
        reader->database.reopen();
    }
    TempIndex other;
    other.add(Item{"other", "other"});
    other.commit();
    auto elsewhere = other.reader();
    search(*elsewhere);
    search(*elsewhere);
    CHECK(reads == 2);
}

TEST_CASE("a reader that held no table at the last revision patches the table another reader made, at once") {
    TempIndex index;
    for (const Item &item : corpus(60)) index.add(item);
    index.commit();
    auto first = index.reader();
    auto second = index.reader();
    cxapian::RevisionTableCache<cxapian::DocLengths> first_cache;
    cxapian::RevisionTableCache<cxapian::DocLengths> second_cache;
    int reads = 0;
    int patches = 0;
    auto search = [&](cxapian::RevisionTableCache<cxapian::DocLengths> &cache, cxapian::Reader &at) {
        auto table = cache.get(
            at.database, "test: shared base", at.path,
            [&reads](const Xapian::Database &db) {
                ++reads;
                return std::make_shared<const cxapian::DocLengths>(db);
            },
            [&patches](const cxapian::DocLengths &previous, const Xapian::Database &db, const Docids &changed) {
                ++patches;
                return std::make_shared<const cxapian::DocLengths>(previous, db, changed);
            });
        cxapian::TableMaker::wait();
        return table;
    };
    // The first reader's table, read whole on its second search.
    search(first_cache, *first);
    search(first_cache, *first);
    REQUIRE(reads == 1);
    // A commit; the second reader, which never held a table, searches the new revision: the first reader's table,
    // patched, is asked for at its first search.
    index.replace(3, edited(3, 1));
    index.commit();
    second->database.reopen();
    search(second_cache, *second);
    CHECK(reads == 1);
    CHECK(patches == 1);
    const auto table = search(second_cache, *second);
    REQUIRE(table != nullptr);
    CHECK(table->revision() == second->database.get_revision());
    const cxapian::DocLengths whole(second->database);
    for (Xapian::docid did = 1; did <= 60; ++did) CHECK(table->length(did) == whole.length(did));
}

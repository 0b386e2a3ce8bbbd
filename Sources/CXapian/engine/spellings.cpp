// spellings.cpp — the words of the spelling table. Called only from inside the C API's guarded entry points, so
// exceptions thrown here are caught there.

#include "spellings.h"

#include "writable.h"

#include <algorithm>

namespace cxapian {

bool is_spelling_word(const std::string &term, size_t prefix_length) {
    if (term.size() < prefix_length + 2) return false;
    const unsigned char first = static_cast<unsigned char>(term[prefix_length]);
    if (!((first >= 'a' && first <= 'z') || first >= 0x80)) return false;
    for (size_t i = prefix_length + 1; i < term.size(); ++i) {
        const unsigned char byte = static_cast<unsigned char>(term[i]);
        if (!((byte >= 'a' && byte <= 'z') || byte >= 0x80 || byte == '\'')) return false;
    }
    return true;
}

void add_spellings(Xapian::WritableDatabase &database, std::vector<std::string> words,
                   const std::string &title_prefix, Xapian::doccount minimum_frequency) {
    const auto not_a_word = [](const std::string &word) { return !is_spelling_word(word, 0); };
    words.erase(std::remove_if(words.begin(), words.end(), not_a_word), words.end());
    std::sort(words.begin(), words.end());
    // One walk of the spelling table in word order tells which words it has (Xapian 1.4 has no lookup of one).
    Xapian::TermIterator known = database.spellings_begin();
    const Xapian::TermIterator end = database.spellings_end();
    for (const std::string &word : words) {
        if (known != end && *known < word) known.skip_to(word);
        if (known != end && *known == word) continue;
        const Xapian::doccount in_text = database.get_termfreq(word);
        const Xapian::doccount in_titles = database.get_termfreq(title_prefix + word);
        if (in_titles > 0 || in_text >= minimum_frequency) database.add_spelling(word, in_text + in_titles);
    }
}

void add_spellings_from_shards(const std::vector<std::string> &paths, const std::string &title_prefix,
                               Xapian::doccount minimum_frequency) {
    if (paths.empty()) return;
    Xapian::Database all;
    for (const std::string &path : paths) all.add_database(Xapian::Database(path));
    const std::string &prefix = title_prefix;
    Xapian::WritableDatabase first = open_writable(paths[0], Xapian::DB_OPEN | Xapian::DB_NO_SYNC);
    // Title words first: every one of them is kept, with its frequency over titles and text.
    for (Xapian::TermIterator term = all.allterms_begin(prefix); term != all.allterms_end(prefix); ++term) {
        const std::string &name = *term;
        if (!is_spelling_word(name, prefix.size())) continue;
        const std::string word = name.substr(prefix.size());
        first.add_spelling(word, term.get_termfreq() + all.get_termfreq(word));
    }
    for (Xapian::TermIterator term = all.allterms_begin(); term != all.allterms_end(); ++term) {
        const std::string &name = *term;
        if (!is_spelling_word(name, 0) || term.get_termfreq() < minimum_frequency) continue;
        if (!prefix.empty() && all.term_exists(prefix + name)) continue;  // added with the titles
        first.add_spelling(name, term.get_termfreq());
    }
}

}  // namespace cxapian

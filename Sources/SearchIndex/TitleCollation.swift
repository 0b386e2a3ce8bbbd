/// Sort keys for titles in the order people expect, not the order of their bytes: `Éclair` among the e's (before
/// `zebra`), `apple` beside `Apple`.
///
/// This is the Unicode Collation Algorithm's order at its first levels, approximated without ICU: the primary key
/// is the title folded (NFKC, diacritics removed, lowercase), so letters compare as base letters; then the
/// diacritics, then the case of the title as written break ties, so `resume` < `Resume` < `résumé` and the order is
/// total. A tie-break equal to the level above is left out (empty sorts first: plain before accented, lowercase
/// before capitals): most titles need none. Keys are at most 50 bytes (Xapian compares values as bytes, and keeps
/// one per document): titles that agree in their first 32 folded bytes, and in their first 8 of case and accents,
/// sort by index order: longer keys were a share of the index that few sorts needed.
public enum TitleCollation {
    public static func key(_ title: String) -> [UInt8] {
        var key = Array(TextNormalizer.fold(title).lowercased().utf8.prefix(32))
        let accents = Array(title.lowercased().utf8.prefix(8))
        let written = Array(title.utf8.prefix(8))
        key.append(0)  // the primary key ends before any tie-break: a shorter title sorts first
        if !key.starts(with: accents) { key += accents }
        key.append(0)
        if written != accents { key += written }
        return key
    }
}

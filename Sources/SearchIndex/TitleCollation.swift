/// Sort keys for titles in the order people expect, not the order of their bytes: `Éclair` among the e's (before
/// `zebra`), `apple` beside `Apple`.
///
/// This is the Unicode Collation Algorithm's order at its first levels, approximated without ICU: the primary key
/// is the title folded (NFKC, diacritics removed, lowercase), so letters compare as base letters; then the
/// diacritics and case of the title as written break ties, so `resume` comes before `résumé` and the order is total.
/// Keys are cut to 120 bytes (Xapian compares values as bytes).
public enum TitleCollation {
    public static func key(_ title: String) -> [UInt8] {
        let primary = Array(TextNormalizer.fold(title).lowercased().utf8.prefix(80))
        var key = primary
        key.append(0)  // the primary key ends before any tie-break: a shorter title sorts first
        key += Array(title.lowercased().utf8.prefix(20))
        key.append(0)
        key += Array(title.utf8.prefix(120 - key.count))
        return Array(key.prefix(120))
    }
}

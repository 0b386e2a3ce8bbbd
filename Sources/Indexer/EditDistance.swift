/// Levenshtein distance between short strings (project titles), by characters.
enum EditDistance {
    /// The number of single-character insertions, deletions and substitutions between `a` and `b`, or nil when it
    /// is more than `limit` (found out early, without filling the whole table).
    static func between(_ a: String, _ b: String, limit: Int) -> Int? {
        let a = Array(a)
        let b = Array(b)
        if abs(a.count - b.count) > limit { return nil }
        if a.isEmpty { return b.count <= limit ? b.count : nil }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowMinimum = current[0]
            for j in stride(from: 1, through: b.count, by: 1) {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
                rowMinimum = min(rowMinimum, current[j])
            }
            if rowMinimum > limit { return nil }
            swap(&previous, &current)
        }
        return previous[b.count] <= limit ? previous[b.count] : nil
    }
}

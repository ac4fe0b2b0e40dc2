extension BrowseFilter {
    /// Every qualifier name a search accepts (aliases included), as the error lists them.
    public static let qualifierNames = ["env", "status", "verdict", "offer", "since", "customer", "order", "tx", "original", "product",
                                        "operator", "action", "target"]

    /// Names a qualifier is also written as.
    static let qualifierAliases = ["environment", "by", "transaction", "cust"]

    /// The qualifier `name` (not one) is a slip of: one edit away (a swap of two neighbours
    /// counts as one) from a qualifier of three or four letters ("evn" → "env"), two from a
    /// longer one ("stauts" → "status"); nil when it is too far from all of them to be meant
    /// as one (then it is searched as text: ids may hold colons).
    static func qualifierMeant(_ name: String) -> String? {
        let name = name.lowercased()
        guard name.count >= 3, name.count <= 16 else { return nil }
        let scored = (qualifierNames + qualifierAliases).filter { $0.count >= 3 }.map { ($0, slips(name, $0)) }
        guard let best = scored.min(by: { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0 < $1.0 }),
              best.1 <= (best.0.count <= 4 ? 1 : 2) else { return nil }
        return best.0
    }

    /// Edits from `a` to `b`: insertions, deletions, substitutions and swaps of neighbours.
    static func slips(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[a.count][b.count]
    }
}

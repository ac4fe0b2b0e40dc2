import Foundation

extension Browser {
    /// The existing customer ids closest to `id` (a likely typo), best first: candidates found
    /// through the search indexes (the same first two characters; any three-character piece of
    /// it in an id, name or email), ranked by edit distance, at most `limit`, none farther than
    /// half the id's length.
    public func closestCustomers(to id: String, limit: Int = 3) throws -> [String] {
        let folded = SearchTerms.fold(id)
        let terms = SearchTerms(dialect: database.dialect)
        var candidates = Set<String>()
        if folded.count >= 2 {
            let start = SearchTerms.prefix(database.dialect.folded("customer_id"), String(folded.prefix(2)))
            candidates.formUnion(try database.query("SELECT customer_id FROM customers WHERE \(start.sql) LIMIT 300", start.parameters)
                .compactMap { $0.string("customer_id") })
        }
        let characters = Array(folded)
        let pieces = Set(stride(from: 0, to: max(0, characters.count - 2), by: 3).map { String(characters[$0..<min(characters.count, $0 + 3)]) })
        for piece in pieces.sorted().prefix(6) {
            guard let fragment = terms.contactFragment(piece) else { continue }
            candidates.formUnion(try database.query("SELECT customer_id FROM customers WHERE \(fragment.sql) LIMIT 100", fragment.parameters)
                .compactMap { $0.string("customer_id") })
        }
        let farthest = max(2, folded.count / 2)
        var ranked: [(id: String, distance: Int)] = []
        for candidate in candidates {
            let distance = Self.editDistance(SearchTerms.fold(candidate), folded)
            if distance <= farthest { ranked.append((candidate, distance)) }
        }
        ranked.sort { a, b in a.distance != b.distance ? a.distance < b.distance : a.id < b.id }
        return ranked.prefix(limit).map { $0.id }
    }

    /// Levenshtein distance over characters.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}

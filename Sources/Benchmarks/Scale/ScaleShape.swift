import Foundation
import StoreSimulator

/// What one customer of the scale benchmark's database holds, shaped like the demo's and
/// Apple's data rather than the 1,000,000-transaction lookup database's uniform rows: customer
/// ids as the demo makes them (`cust-0042`, growing digits: a prefix such as `cust-2` matches
/// a large share), with UUIDs and numeric account ids mixed in; names and emails in several
/// scripts (Latin with diacritics, Chinese, Japanese, Korean, Cyrillic, Arabic, Greek) and
/// customers without any; 16-digit Apple transaction ids in one increasing sequence; monthly
/// and yearly subscribers with long renewal chains, consumable buyers, one-off unlocks;
/// several receipts per customer (about one for every two transactions, each raw blob the size
/// a receipt of that many purchases has); merchant orders (`ORD-…`), paid, pending and failed;
/// subscription states (active, billing retry, grace period, expired, revoked); an audit entry
/// per receipt and per customer. Deterministic: customer `index` is always the same.
struct ScaleCustomer {
    /// One purchase: offsets into the customer's own transactions.
    struct Purchase {
        enum Kind { case monthly, yearly, consumable, lifetime }
        let kind: Kind
        /// Renewals after the first period (0 for anything but a subscription).
        let renewals: Int
        /// The purchase is bound to a merchant order.
        let hasOrder: Bool
        /// The subscription's state at Apple (1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked).
        let status: Int
        var transactionCount: Int { renewals + 1 }
    }

    let index: Int
    let id: String
    let name: String?
    let email: String?
    let joined: Date
    let purchases: [Purchase]
    /// A merchant order that failed (no transaction), or nil.
    let failedOrder: Bool
    var transactionCount: Int { purchases.reduce(0) { $0 + $1.transactionCount } }

    /// Customer `index`.
    init(_ index: Int) {
        var random = SplitMix64(seed: 0x5CA1E_0000 &+ UInt64(index) &* 0x9E37_79B9)
        self.index = index
        id = Self.customerId(index)
        joined = Date(timeIntervalSince1970: 1_609_459_200 + Double(index % 2_000_000) * 31)  // from 2021-01-01, over two years
        if Int.random(in: 0..<100, using: &random) < 15 {
            (name, email) = (nil, nil)  // a customer support knows only by id
        } else {
            let contact = ScaleNames.contact(index, &random)
            (name, email) = (contact.name, contact.email)
        }
        var purchases: [Purchase] = []
        let story = Int.random(in: 0..<100, using: &random)
        func status() -> Int { [1, 1, 1, 1, 2, 2, 2, 3, 4, 5][Int.random(in: 0..<10, using: &random)] }
        if story < 45 {  // a monthly subscriber, sometimes with a coin pack or two
            purchases.append(Purchase(kind: .monthly, renewals: Int.random(in: 0..<24, using: &random), hasOrder: story % 3 == 0, status: status()))
            for _ in 0..<Int.random(in: 0..<3, using: &random) { purchases.append(Purchase(kind: .consumable, renewals: 0, hasOrder: false, status: 0)) }
        } else if story < 60 {  // yearly
            purchases.append(Purchase(kind: .yearly, renewals: Int.random(in: 0..<4, using: &random), hasOrder: true, status: status()))
        } else if story < 85 {  // coins
            for _ in 0..<Int.random(in: 1...14, using: &random) {
                purchases.append(Purchase(kind: .consumable, renewals: 0, hasOrder: Bool.random(using: &random), status: 0))
            }
        } else {  // a lifetime unlock, then maybe coins
            purchases.append(Purchase(kind: .lifetime, renewals: 0, hasOrder: true, status: 0))
            for _ in 0..<Int.random(in: 0..<4, using: &random) { purchases.append(Purchase(kind: .consumable, renewals: 0, hasOrder: false, status: 0)) }
        }
        self.purchases = purchases
        failedOrder = Int.random(in: 0..<10, using: &random) == 0
    }

    /// Customer ids as merchants make them: mostly the demo's `cust-%04d`, some UUIDs, some
    /// numeric account ids.
    static func customerId(_ index: Int) -> String {
        switch index % 10 {
        case 7, 8:
            var random = SplitMix64(seed: UInt64(index) &* 0xD1B5_4A32_D192_ED03)
            let (a, b) = (random.next(), random.next())
            let hex = String(format: "%016llx%016llx", a, b)
            let scalars = Array(hex)
            return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(scalars[$0]) }.joined(separator: "-")
        case 9: return "10" + LedgerBenchCases.padded(index, 8)
        default: return String(format: "cust-%04d", index)
        }
    }

    /// The first of the 16-digit Apple transaction ids, as the demo's simulator numbers them.
    static let firstTransactionId: Int64 = 2_000_000_100_000_001
    /// Customers whose purchases make about `transactions` transactions (about 7.6 each).
    static func customersFor(transactions: Int) -> Int { max(1, Int((Double(transactions) / 7.6).rounded(.up))) }
}

/// The names and emails of the scale benchmark's customers, in several scripts.
enum ScaleNames {
    /// (given names, family names, family name first, email domains), with a romanised local part for emails.
    struct Script {
        let given: [String]
        let family: [String]
        let familyFirst: Bool
        let domains: [String]
        let share: Int
    }

    static let scripts = [
        Script(given: ["Ada", "Grace", "José", "Zoë", "Björn", "François", "Siobhán", "Łukasz", "Mia", "Noah", "Emma", "Lucas", "Ana", "Ingrid"],
               family: ["Lovelace", "Hopper", "Müller", "García", "Okafor", "Lindqvist", "Nguyễn", "O'Brien", "Smith", "Dubois", "Kowalski",
                        "Rossi", "Silva", "Álvarez", "Jensen", "Fischer"], familyFirst: false,
               domains: ["gmail.com", "icloud.com", "outlook.com", "web.de", "example.org"], share: 55),
        Script(given: ["小明", "娜", "伟", "芳", "秀英", "敏", "静", "强"], family: ["王", "李", "张", "刘", "陈", "杨", "黄", "赵"],
               familyFirst: true, domains: ["qq.com", "163.com", "icloud.com"], share: 12),
        Script(given: ["さくら", "陽翔", "結衣", "蓮", "美咲"], family: ["佐藤", "鈴木", "高橋", "田中", "伊藤"], familyFirst: true,
               domains: ["docomo.ne.jp", "icloud.com", "gmail.com"], share: 8),
        Script(given: ["민준", "서연", "지호", "하은"], family: ["김", "이", "박", "최"], familyFirst: true, domains: ["naver.com", "gmail.com"], share: 7),
        Script(given: ["Ольга", "Иван", "Дмитрий", "Анна", "Сергей"], family: ["Иванова", "Смирнов", "Кузнецова", "Попов", "Соколова"],
               familyFirst: false, domains: ["yandex.ru", "mail.ru", "gmail.com"], share: 8),
        Script(given: ["محمد", "فاطمة", "أحمد", "ليلى"], family: ["العلي", "حسن", "الخطيب"], familyFirst: false,
               domains: ["gmail.com", "hotmail.com"], share: 6),
        Script(given: ["Ἀθηνᾶ", "Νίκος", "Ελένη"], family: ["Παπαδόπουλος", "Γεωργίου", "Οικονόμου"], familyFirst: false,
               domains: ["gmail.com", "otenet.gr"], share: 4),
    ]

    /// A name and an email for customer `index`.
    static func contact(_ index: Int, _ random: inout SplitMix64) -> (name: String, email: String) {
        var pick = Int.random(in: 0..<100, using: &random)
        var script = scripts[0]
        for candidate in scripts {
            if pick < candidate.share { script = candidate; break }
            pick -= candidate.share
        }
        let given = script.given[Int.random(in: 0..<script.given.count, using: &random)]
        let family = script.family[Int.random(in: 0..<script.family.count, using: &random)]
        let name = script.familyFirst ? "\(family)\(given)" : "\(given) \(family)"
        let domain = script.domains[Int.random(in: 0..<script.domains.count, using: &random)]
        let ascii = romanised(given + "." + family)
        let local = ascii.count >= 3 && script.share == 55 ? ascii : "user\(index)"
        return (name, "\(local)\(index % 997)@\(domain)")
    }

    /// Lower-case ASCII letters and dots of `text` (diacritics dropped), for an email's local part.
    static func romanised(_ text: String) -> String {
        let folded = text.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil)
        return String(folded.unicodeScalars.compactMap { scalar -> Character? in
            if ("a"..."z").contains(scalar) || scalar == "." { return Character(scalar) }
            if scalar == "ł" { return "l" }
            return nil
        })
    }
}

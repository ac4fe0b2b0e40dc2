import Foundation

/// Reads config JSON into a `StoreConfiguration`, refusing anything it does not understand.
/// Every error is a `ReceiptError(.configuration, "config <source>: <key path>: <reason>")`.
struct StoreConfigurationParser {
    let source: String

    static let topLevelKeys = ["bundleIds", "bundleId", "appAppleId", "products", "sandbox", "paidToFree", "appStore", "display", "operators", "console"]
    static let displayKeys = ["timeZone"]
    static let productKeys = ["entitlement", "type", "duration", "units", "name"]
    static let sandboxKeys = ["allowSandbox"]
    static let paidToFreeKeys = ["entitlement", "beforeBuild", "beforeDate"]
    /// Type names in the order error messages list them.
    static let typeNames: [ProductType] = [.consumable, .nonConsumable, .autoRenewable, .nonRenewing]
    /// The most units one consumable may grant per quantity; keeps balances far from overflow.
    static let maxUnits: Int64 = 1_000_000_000

    func parse(_ bytes: [UInt8]) throws -> StoreConfiguration {
        let root = try document(bytes)
        try root.checkKeys(known: Self.topLevelKeys, ignored: StoreConfiguration.reservedKeys)
        for key in StoreConfiguration.reservedKeys.sorted() {
            if let section = root[key] { try ConfigSecrets.scan(section) }
        }
        var configuration = StoreConfiguration(
            bundleIds: try bundleIds(root),
            appAppleId: try root["appAppleId"].map { try $0.integer(in: 1...Int64.max) },
            products: try products(root["products"]),
            allowSandbox: try allowSandbox(root["sandbox"]),
            paidToFree: try paidToFree(root["paidToFree"]))
        configuration.appStore = try AppStoreSettingsParser(source: source).parse(root["appStore"])
        configuration.displayTimeZone = try displayTimeZone(root["display"])
        configuration.operatorsByDatabaseUser = try operators(root["operators"])
        configuration.console = try ConsoleSettingsParser(source: source).parse(root["console"])
        return configuration
    }

    /// `operators`: database user (a PostgreSQL login role, or an OS user for SQLite) → the
    /// operator name that user's changes carry, e.g. `{"alice_login": "alice"}`.
    private func operators(_ value: ConfigValue?) throws -> [String: String] {
        guard let value else { return [:] }
        let section = try value.object()
        var map: [String: String] = [:]
        for key in section.keys {
            guard let entry = section[key] else { continue }
            guard !key.isEmpty, key.count <= 128 else {
                throw ConfigValue.error(source: source, path: value.path, "a database user name is 1–128 characters")
            }
            let name = try entry.string()
            guard !name.isEmpty, name.count <= 128, !name.contains(where: { $0.isNewline }) else {
                throw ConfigValue.error(source: source, path: ConfigValue.join(value.path, key), "an operator name is 1–128 characters on one line")
            }
            map[key] = name
        }
        return map
    }

    /// The top-level object, after the size, depth and syntax checks.
    private func document(_ bytes: [UInt8]) throws -> ConfigObject {
        guard bytes.count <= StoreConfiguration.maxBytes else {
            throw fail("\(bytes.count) bytes is over the 1 MiB limit")
        }
        do {
            try JSONObject.checkDepth(bytes, what: "config")
        } catch {
            // The only failure is nesting too deep; said here in the config's own words.
            throw fail("not valid JSON (nested deeper than \(JSONObject.maxDepth) levels)")
        }
        guard String(validating: bytes, as: UTF8.self) != nil else { throw fail("not valid JSON (not UTF-8)") }
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: Data(bytes), options: [])
        } catch {
            throw fail("not valid JSON: \(JSONObject.describe(bytes))")
        }
        if let duplicate = JSONSyntax.firstDuplicateKey(bytes) {
            throw fail("a member name is written twice in one object: \(duplicate) (JSON readers keep only one; say it once)")
        }
        return try ConfigValue(raw: parsed, path: "", source: source).object()
    }

    private func fail(_ reason: String) -> ReceiptError {
        ConfigValue.error(source: source, path: "", reason)
    }

    // MARK: - Sections

    private func bundleIds(_ root: ConfigObject) throws -> [String] {
        if let single = root["bundleId"] {
            guard root["bundleIds"] == nil else { throw single.error("give either bundleId or bundleIds, not both") }
            return [try bundleId(single)]
        }
        guard let list = root["bundleIds"] else { return [] }
        var ids: [String] = []
        for element in try list.array() {
            let id = try bundleId(element)
            guard !ids.contains(id) else { throw element.error("\(ConfigText.quoted(id)) is listed twice") }
            ids.append(id)
        }
        return ids
    }

    private func bundleId(_ value: ConfigValue) throws -> String {
        let id = try value.name(what: "a bundle id")
        let allowed = id.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "-._".unicodeScalars.contains($0)
        }
        guard allowed else { throw value.error("\(ConfigText.quoted(id)) is not a bundle id (letters, digits, '-', '_' and '.' only)") }
        return id
    }

    private func products(_ value: ConfigValue?) throws -> [String: CatalogueProduct] {
        guard let value else { return [:] }
        let catalogue = try value.object()
        guard catalogue.members.count <= StoreConfiguration.maxProducts else {
            throw value.error("\(catalogue.members.count) products, more than the \(StoreConfiguration.maxProducts) allowed")
        }
        var products: [String: CatalogueProduct] = [:]
        for productId in catalogue.keys {
            let entry = ConfigValue(raw: catalogue.members[productId] ?? NSNull(), path: ConfigValue.join(value.path, productId), source: source)
            guard !productId.isEmpty else { throw entry.error("a product id must not be empty") }
            guard !productId.unicodeScalars.contains(where: { $0.properties.isWhitespace || ConfigText.breaksLine($0) }) else {
                throw entry.error("product id \(ConfigText.quoted(productId)) contains white space or a control character")
            }
            products[productId] = try product(entry)
        }
        return products
    }

    private func product(_ value: ConfigValue) throws -> CatalogueProduct {
        let fields = try value.object()
        try fields.checkKeys(known: Self.productKeys)
        guard let entitlementValue = fields["entitlement"] else {
            throw ConfigValue.error(source: source, path: ConfigValue.join(value.path, "entitlement"),
                                    "missing; every product names the entitlement it gives")
        }
        let entitlement = try entitlementValue.name(what: "an entitlement name")
        let names = Self.typeNames.map(\.rawValue).joined(separator: ", ")
        guard let typeValue = fields["type"] else {
            throw ConfigValue.error(source: source, path: ConfigValue.join(value.path, "type"), "missing; one of \(names)")
        }
        let typeText = try typeValue.string()
        guard let type = ProductType(rawValue: typeText) else {
            throw typeValue.error("\(ConfigText.quoted(typeText)) is not one of \(names)")
        }
        var duration: ISODuration?
        if let durationValue = fields["duration"] {
            guard type == .nonRenewing else {
                throw durationValue.error("only non-renewing products take a duration (this one is \(type.rawValue))")
            }
            let text = try durationValue.string()
            guard let parsed = ISODuration(text) else {
                throw durationValue.error("\(ConfigText.quoted(text)) is not an ISO 8601 duration such as P1Y, P1M, P7D, PT12H or P1MT12H")
            }
            guard !parsed.isZero else { throw durationValue.error("\(ConfigText.quoted(text)) is zero long") }
            duration = parsed
        } else if type == .nonRenewing {
            throw ConfigValue.error(source: source, path: ConfigValue.join(value.path, "duration"),
                                    "missing; a non-renewing product needs one, such as P1M")
        }
        var units: Int64 = 1
        if let unitsValue = fields["units"] {
            guard type == .consumable else {
                throw unitsValue.error("only consumable products take units (this one is \(type.rawValue))")
            }
            units = try unitsValue.integer(in: 1...Self.maxUnits)
        }
        let name = try fields["name"]?.name(what: "a product name")
        return CatalogueProduct(entitlement: entitlement, type: type, duration: duration, units: units, name: name)
    }

    /// `display.timeZone`: an IANA zone name ("Europe/Berlin") or "UTC".
    private func displayTimeZone(_ value: ConfigValue?) throws -> String? {
        guard let value else { return nil }
        let section = try value.object()
        try section.checkKeys(known: Self.displayKeys)
        guard let zoneValue = section["timeZone"] else { return nil }
        guard let name = zoneValue.raw as? String, TimeZone(identifier: name) != nil else {
            throw ConfigValue.error(source: source, path: ConfigValue.join(value.path, "timeZone"),
                                    "not a time zone: give an IANA name such as \"Europe/Berlin\" or \"UTC\"")
        }
        return name
    }

    private func allowSandbox(_ value: ConfigValue?) throws -> Bool {
        guard let value else { return false }
        let section = try value.object()
        try section.checkKeys(known: Self.sandboxKeys)
        return try section["allowSandbox"]?.bool() ?? false
    }

    private func paidToFree(_ value: ConfigValue?) throws -> PaidToFreeRule? {
        guard let value else { return nil }
        let section = try value.object()
        try section.checkKeys(known: Self.paidToFreeKeys)
        guard let entitlementValue = section["entitlement"] else {
            throw ConfigValue.error(source: source, path: ConfigValue.join(value.path, "entitlement"),
                                    "missing; the rule names the entitlement legacy customers keep")
        }
        let entitlement = try entitlementValue.name(what: "an entitlement name")
        var beforeBuild: String?
        if let buildValue = section["beforeBuild"] {
            guard buildValue.raw is String else {
                // A JSON number would turn "1.10" into 1.1: build numbers are written as strings.
                throw buildValue.error("expected a string such as \"42\" or \"1.10\", found \(buildValue.kind)")
            }
            let text = try buildValue.string()
            guard VersionNumber.isValid(text) else {
                throw buildValue.error("\(ConfigText.quoted(text)) is not a build number (digits separated by dots, such as 42 or 1.2.3)")
            }
            beforeBuild = text
        }
        var beforeDate: Date?
        if let dateValue = section["beforeDate"] {
            let text = try dateValue.string()
            guard let date = RFC3339.parse(text) else {
                throw dateValue.error("\(ConfigText.quoted(text)) is not an RFC 3339 date such as 2020-01-01T00:00:00Z")
            }
            beforeDate = date
        }
        guard beforeBuild != nil || beforeDate != nil else {
            throw value.error("give beforeBuild, beforeDate or both")
        }
        return PaidToFreeRule(entitlement: entitlement, beforeBuild: beforeBuild, beforeDate: beforeDate)
    }
}

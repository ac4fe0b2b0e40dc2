import Foundation
import Testing
@testable import ReceiptCore

/// Parses `text` as a config from "/etc/rd.json".
private func parse(_ text: String) throws -> StoreConfiguration {
    try StoreConfiguration(json: Array(text.utf8), source: "/etc/rd.json")
}

/// The one-line message a config is refused with; nil when it parses.
private func refusal(_ text: String) -> String? {
    do {
        _ = try parse(text)
        return nil
    } catch let error as ReceiptError {
        #expect(error.code == .configuration)
        #expect(!error.reason.contains("\n"))
        return error.reason
    } catch {
        Issue.record("unexpected error \(error)")
        return nil
    }
}

private func date(_ text: String) -> Date {
    RFC3339.parse(text) ?? .distantPast
}

@Suite("Store configuration")
struct ConfigurationParsingTests {
    static let full = """
    {
      "bundleIds": ["com.example.game", "com.example.game.mac"],
      "appAppleId": 1234567890,
      "products": {
        "pro.monthly": { "entitlement": "pro", "type": "auto-renewable" },
        "pro.lifetime": { "entitlement": "pro", "type": "non-consumable" },
        "pro.pass.30d": { "entitlement": "pro", "type": "non-renewing", "duration": "P30D" },
        "coins.100": { "entitlement": "coins", "type": "consumable", "units": 100 },
        "coins.1": { "entitlement": "coins", "type": "consumable" }
      },
      "sandbox": { "allowSandbox": true },
      "paidToFree": { "entitlement": "pro", "beforeBuild": "42", "beforeDate": "2020-01-01T00:00:00Z" },
      "appStore": { "sharedSecretFile": "/etc/receiptdesk/secret", "verifyReceipt": { "productionURL": "https://buy.itunes.apple.com/verifyReceipt" } },
      "timeouts": { "connect": 5 }
    }
    """

    @Test func parsesAFullExample() throws {
        let config = try parse(Self.full)
        #expect(config.bundleIds == ["com.example.game", "com.example.game.mac"])
        #expect(config.appAppleId == 1_234_567_890)
        #expect(config.allowSandbox)
        #expect(config.products.count == 5)
        #expect(config.products["pro.monthly"] == CatalogueProduct(entitlement: "pro", type: .autoRenewable))
        #expect(config.products["pro.lifetime"] == CatalogueProduct(entitlement: "pro", type: .nonConsumable))
        #expect(config.products["pro.pass.30d"] == CatalogueProduct(entitlement: "pro", type: .nonRenewing, duration: ISODuration("P30D")))
        #expect(config.products["coins.100"] == CatalogueProduct(entitlement: "coins", type: .consumable, units: 100))
        #expect(config.products["coins.1"]?.units == 1)
        #expect(config.paidToFree == PaidToFreeRule(entitlement: "pro", beforeBuild: "42", beforeDate: date("2020-01-01T00:00:00Z")))
        #expect(config.appStore.sharedSecretFile == "/etc/receiptdesk/secret")
        #expect(config.appStore.verifyReceiptProductionURL?.absoluteString == "https://buy.itunes.apple.com/verifyReceipt")
    }

    @Test func appStoreSectionIsReadStrictly() throws {
        let config = try parse("""
        {"appStore": {"api": "serverAPI", "serverAPI": {"productionURL": "http://127.0.0.1:8080/production",
          "sandboxURL": "http://127.0.0.1:8080/sandbox", "keyId": "K1", "issuerId": "I1", "privateKeyFile": "keys/api.p8"},
          "timeoutSeconds": 5, "maxAttempts": 3, "trustAnchorFiles": ["sim/root.der"], "simulator": {"stateDirectory": "sim"}}}
        """)
        #expect(config.appStore.api == .serverAPI)
        #expect(config.appStore.privateKeyFile == "/etc/keys/api.p8", "relative to the config file's folder")
        #expect(config.appStore.trustAnchorFiles == ["/etc/sim/root.der"])
        #expect(config.appStore.isSimulator)
        #expect(config.appStore.timeoutSeconds == 5)
        #expect(refusal(#"{"appStore": {"verifyReceipt": {"productionURL": "http://evil.example/verifyReceipt"}}}"#)
            == "config /etc/rd.json: appStore.verifyReceipt.productionURL: 'http://evil.example/verifyReceipt' must be https (plain http only to a loopback address: 127.0.0.0/8 or localhost)")
        #expect(refusal(#"{"appStore": {"verifyReceipt": {"productionURL": "http://[::1]:8443/verifyReceipt"}}}"#)
            == "config /etc/rd.json: appStore.verifyReceipt.productionURL: 'http://[::1]:8443/verifyReceipt' \(LoopbackHost.ipv6Refusal)")
        // Every loopback spelling the transport accepts, the config accepts.
        for accepted in ["http://127.0.0.1:1/v", "http://127.8.9.10:1/v", "http://localhost:1/v", "http://LOCALHOST:1/v"] {
            #expect(refusal("{\"appStore\": {\"verifyReceipt\": {\"productionURL\": \"\(accepted)\"}}}") == nil, "\(accepted)")
            #expect(LoopbackHost.contains(try #require(URL(string: accepted)?.host)), "the transport asks LoopbackHost too")
        }
        #expect(refusal(#"{"appStore": {"api": "serverAPI"}}"#)?.contains("needs serverAPI.keyId") == true)
        #expect(refusal(#"{"appStore": {"timeoutSeconds": 500}}"#)?.hasPrefix("config /etc/rd.json: appStore.timeoutSeconds") == true)
        #expect(refusal(#"{"appStore": {"endpoint": "x"}}"#)?.contains("unknown key") == true)
    }

    @Test func revocationIsOffByDefaultAndReadStrictly() throws {
        #expect(try parse("{}").appStore.revocation == .off)
        #expect(try parse(#"{"appStore": {"revocation": "prefer"}}"#).appStore.revocation.mode == .prefer)
        let full = try parse(#"{"appStore": {"revocation": {"mode": "require", "responderURL": "http://ocsp.apple.com/ocsp03-wwdrg602", "timeoutSeconds": 3}}}"#)
        #expect(full.appStore.revocation == RevocationPolicy(mode: .require, responderURL: URL(string: "http://ocsp.apple.com/ocsp03-wwdrg602"),
                                                             timeoutSeconds: 3))
        #expect(refusal(#"{"appStore": {"revocation": "sometimes"}}"#)?.contains("is not one of off, prefer, require") == true)
        #expect(refusal(#"{"appStore": {"revocation": {"mode": "prefer", "url": "x"}}}"#)?.contains("unknown key") == true)
    }

    @Test func finishOnDeliveryIsOffByDefaultAndNeedsTheServerAPI() throws {
        #expect(try parse("{}").appStore.finishOnDelivery == false)
        let keys = #""serverAPI": {"keyId": "2X9R4HXF34", "issuerId": "issuer", "privateKeyFile": "key.p8"}"#
        #expect(try parse(#"{"appStore": {\#(keys), "finishOnDelivery": true}}"#).appStore.finishOnDelivery == true)
        #expect(try parse(#"{"appStore": {"finishOnDelivery": false}}"#).appStore.finishOnDelivery == false)
        #expect(refusal(#"{"appStore": {"finishOnDelivery": true}}"#)?.contains("finishOnDelivery asks Apple (Finish Transaction): it needs serverAPI.keyId") == true)
        #expect(refusal(#"{"appStore": {\#(keys), "finishOnDelivery": "yes"}}"#)?.contains("expected true or false") == true)
    }

    @Test func absentKeysGiveTheDefaults() throws {
        #expect(try parse("{}") == .defaults)
        #expect(StoreConfiguration.defaults == StoreConfiguration(bundleIds: [], appAppleId: nil, products: [:], allowSandbox: false, paidToFree: nil))
        #expect(try parse(#"{"sandbox": {}}"#).allowSandbox == false)
        #expect(try parse(#"{"appAppleId": null, "products": {}}"#) == .defaults)
        #expect(try parse(#"{"bundleId": "com.example.game"}"#).bundleIds == ["com.example.game"])
    }

    @Test func reservedTopLevelKeysAreIgnored() throws {
        #expect(StoreConfiguration.reservedKeys == ["verifyReceipt", "serverAPI", "timeouts"])
        let config = try parse(#"{"verifyReceipt": {"retry": [1, 2]}, "serverAPI": {"issuerId": "x"}, "timeouts": 3}"#)
        #expect(config == .defaults)
    }

    @Test func paidToFreeNeedsOnlyOneOfBuildAndDate() throws {
        #expect(try parse(#"{"paidToFree": {"entitlement": "pro", "beforeBuild": "1.10"}}"#).paidToFree
            == PaidToFreeRule(entitlement: "pro", beforeBuild: "1.10", beforeDate: nil))
        #expect(try parse(#"{"paidToFree": {"entitlement": "pro", "beforeDate": "2020-01-01T00:00:00+01:00"}}"#).paidToFree?.beforeDate
            == date("2019-12-31T23:00:00Z"))
    }

    @Test func operatorsMapDatabaseUsersToOneNameEach() throws {
        #expect(try parse(#"{"operators": {"alice_login": "alice", "svc": "import-cron"}}"#).operatorsByDatabaseUser
            == ["alice_login": "alice", "svc": "import-cron"])
        #expect(try parse("{}").operatorsByDatabaseUser.isEmpty)
        #expect(throws: ReceiptError.self) { try parse(#"{"operators": {"alice": ""}}"#) }
        #expect(throws: ReceiptError.self) { try parse(#"{"operators": {"alice": 7}}"#) }
        #expect(throws: ReceiptError.self) { try parse(#"{"operators": ["alice"]}"#) }
    }

    @Test(arguments: [
        // Unknown keys, with their path.
        (#"{"bundleIDs": ["com.x"]}"#,
         "config /etc/rd.json: bundleIDs: unknown key (did you mean 'bundleIds'?); known keys here: bundleIds, bundleId, appAppleId, products, sandbox, paidToFree, appStore, display, operators, console"),
        (#"{"products": {"coins.100": {"entitlement": "coins", "type": "consumable", "unit": 5}}}"#,
         "config /etc/rd.json: products.coins.100.unit: unknown key (did you mean 'units'?); known keys here: entitlement, type, duration, units, name"),
        (#"{"sandbox": {"allowSandbx": true}}"#,
         "config /etc/rd.json: sandbox.allowSandbx: unknown key (did you mean 'allowSandbox'?); known keys here: allowSandbox"),
        (#"{"sandbox": {"allowSandbox": true, "allowTesters": true}}"#,
         "config /etc/rd.json: sandbox.allowTesters: unknown key; known keys here: allowSandbox"),
        (#"{"paidToFree": {"entitlement": "pro", "beforeBuild": "4", "build": "3"}}"#,
         "config /etc/rd.json: paidToFree.build: unknown key; known keys here: entitlement, beforeBuild, beforeDate"),
        // Wrong types.
        (#"{"sandbox": {"allowSandbox": "false"}}"#, "config /etc/rd.json: sandbox.allowSandbox: expected true or false, found a string"),
        (#"{"sandbox": {"allowSandbox": 1}}"#, "config /etc/rd.json: sandbox.allowSandbox: expected true or false, found a number"),
        (#"{"sandbox": true}"#, "config /etc/rd.json: sandbox: expected an object, found true/false"),
        (#"{"appAppleId": "1234"}"#, "config /etc/rd.json: appAppleId: expected a whole number, found a string"),
        (#"{"appAppleId": 12.5}"#, "config /etc/rd.json: appAppleId: 12.5 is not a whole number"),
        (#"{"appAppleId": 0}"#, "config /etc/rd.json: appAppleId: 0 is out of range 1...9223372036854775807"),
        (#"{"bundleIds": "com.x"}"#, "config /etc/rd.json: bundleIds: expected an array, found a string"),
        (#"{"bundleIds": ["com.x", 7]}"#, "config /etc/rd.json: bundleIds[1]: expected a string, found a number"),
        (#"{"bundleIds": ["com.x", "com.x"]}"#, "config /etc/rd.json: bundleIds[1]: 'com.x' is listed twice"),
        (#"{"bundleIds": ["com x"]}"#, "config /etc/rd.json: bundleIds[0]: 'com x' is not a bundle id (letters, digits, '-', '_' and '.' only)"),
        (#"{"bundleId": "com.x", "bundleIds": ["com.y"]}"#, "config /etc/rd.json: bundleId: give either bundleId or bundleIds, not both"),
        (#"{"products": []}"#, "config /etc/rd.json: products: expected an object, found an array"),
        (#"{"products": {"pro": "pro"}}"#, "config /etc/rd.json: products.pro: expected an object, found a string"),
        (#"{"products": {"pro": {"entitlement": 1, "type": "consumable"}}}"#, "config /etc/rd.json: products.pro.entitlement: expected a string, found a number"),
        (#"{"products": {"coins": {"entitlement": "coins", "type": "consumable", "units": "100"}}}"#,
         "config /etc/rd.json: products.coins.units: expected a whole number, found a string"),
        // Bad values.
        (#"{"products": {"coins.100": {"entitlement": "coins", "type": "consumible"}}}"#,
         "config /etc/rd.json: products.coins.100.type: 'consumible' is not one of consumable, non-consumable, auto-renewable, non-renewing"),
        (#"{"products": {"coins.100": {"entitlement": "coins"}}}"#,
         "config /etc/rd.json: products.coins.100.type: missing; one of consumable, non-consumable, auto-renewable, non-renewing"),
        (#"{"products": {"pro": {"type": "non-consumable"}}}"#, "config /etc/rd.json: products.pro.entitlement: missing; every product names the entitlement it gives"),
        (#"{"products": {"pro": {"entitlement": "", "type": "non-consumable"}}}"#, "config /etc/rd.json: products.pro.entitlement: an entitlement name must not be empty"),
        (#"{"products": {"pro": {"entitlement": "pro ", "type": "non-consumable"}}}"#,
         "config /etc/rd.json: products.pro.entitlement: an entitlement name 'pro ' has leading or trailing white space"),
        (#"{"products": {"": {"entitlement": "pro", "type": "non-consumable"}}}"#, "config /etc/rd.json: products.: a product id must not be empty"),
        (#"{"products": {"pass": {"entitlement": "pro", "type": "non-renewing"}}}"#,
         "config /etc/rd.json: products.pass.duration: missing; a non-renewing product needs one, such as P1M"),
        (#"{"products": {"pass": {"entitlement": "pro", "type": "non-renewing", "duration": "1 month"}}}"#,
         "config /etc/rd.json: products.pass.duration: '1 month' is not an ISO 8601 duration such as P1Y, P1M, P7D, PT12H or P1MT12H"),
        (#"{"products": {"pass": {"entitlement": "pro", "type": "non-renewing", "duration": "P0D"}}}"#,
         "config /etc/rd.json: products.pass.duration: 'P0D' is zero long"),
        (#"{"products": {"pro.monthly": {"entitlement": "pro", "type": "auto-renewable", "duration": "P1M"}}}"#,
         "config /etc/rd.json: products.pro.monthly.duration: only non-renewing products take a duration (this one is auto-renewable)"),
        (#"{"products": {"pro": {"entitlement": "pro", "type": "non-consumable", "units": 2}}}"#,
         "config /etc/rd.json: products.pro.units: only consumable products take units (this one is non-consumable)"),
        (#"{"products": {"coins": {"entitlement": "coins", "type": "consumable", "units": 0}}}"#,
         "config /etc/rd.json: products.coins.units: 0 is out of range 1...1000000000"),
        (#"{"paidToFree": {"entitlement": "pro", "beforeBuild": "1.0b3"}}"#,
         "config /etc/rd.json: paidToFree.beforeBuild: '1.0b3' is not a build number (digits separated by dots, such as 42 or 1.2.3)"),
        (#"{"paidToFree": {"entitlement": "pro", "beforeBuild": 1.10}}"#,
         #"config /etc/rd.json: paidToFree.beforeBuild: expected a string such as "42" or "1.10", found a number"#),
        (#"{"paidToFree": {"entitlement": "pro", "beforeDate": "2020-01-01"}}"#,
         "config /etc/rd.json: paidToFree.beforeDate: '2020-01-01' is not an RFC 3339 date such as 2020-01-01T00:00:00Z"),
        (#"{"paidToFree": {"entitlement": "pro"}}"#, "config /etc/rd.json: paidToFree: give beforeBuild, beforeDate or both"),
        (#"{"paidToFree": {"beforeBuild": "42"}}"#,
         "config /etc/rd.json: paidToFree.entitlement: missing; the rule names the entitlement legacy customers keep"),
        // Inline secrets, at the top level, in a reserved section, and never echoed.
        (#"{"sharedSecret": "0123abcd"}"#,
         "config /etc/rd.json: sharedSecret: holds an inline secret; secrets come from a file or the environment, never the config"),
        (#"{"appStore": {"sharedSecret": "0123abcd"}}"#,
         "config /etc/rd.json: appStore.sharedSecret: holds an inline secret; secrets come from a file or the environment, never the config"),
        (#"{"serverAPI": {"accounts": [{"privateKey": "-----BEGIN PRIVATE KEY-----"}]}}"#,
         "config /etc/rd.json: serverAPI.accounts[0].privateKey: holds an inline secret; secrets come from a file or the environment, never the config"),
        (#"{"products": {"pro": {"entitlement": "pro", "type": "non-consumable", "password": "hunter2"}}}"#,
         "config /etc/rd.json: products.pro.password: holds an inline secret; secrets come from a file or the environment, never the config"),
        // The whole file.
        ("{\"products\": {", "config /etc/rd.json: not valid JSON: expected a quoted member name, found the end of the text at line 1, column 15 (byte 14)"),
        ("", "config /etc/rd.json: not valid JSON: expected a value, found the end of the text at line 1, column 1 (byte 0)"),
        ("[1, 2]", "config /etc/rd.json: expected an object, found an array"),
        (String(repeating: "[", count: 40), "config /etc/rd.json: not valid JSON (nested deeper than 32 levels)"),
    ])
    func refuses(_ text: String, _ message: String) {
        let reason = refusal(text)
        if message.hasSuffix("not valid JSON") {
            #expect(reason?.hasPrefix(message + " (") == true, "\(reason ?? "nil")")
        } else {
            #expect(reason == message)
        }
        #expect(reason?.contains("0123abcd") != true && reason?.contains("hunter2") != true)
    }

    @Test func refusesBytesThatAreNotUTF8() {
        #expect(throws: ReceiptError.self) { try StoreConfiguration(json: [0x7B, 0xFF, 0x7D], source: "x") }
        do {
            _ = try StoreConfiguration(json: [0x7B, 0xFF, 0x7D], source: "x")
        } catch {
            #expect("\(error)" == "config x: not valid JSON (not UTF-8)")
        }
    }

    @Test func refusesAFileOverOneMebibyte() {
        let padding = String(repeating: " ", count: StoreConfiguration.maxBytes)
        #expect(refusal("{}" + padding) == "config /etc/rd.json: \(StoreConfiguration.maxBytes + 2) bytes is over the 1 MiB limit")
        #expect(refusal("{}" + String(repeating: " ", count: StoreConfiguration.maxBytes - 2)) == nil)
    }

    @Test func refusesMoreThanTenThousandProducts() throws {
        func catalogue(_ count: Int) -> String {
            let entries = (0..<count).map { #""p\#($0)": {"entitlement": "e", "type": "consumable"}"# }
            return #"{"products": {"# + entries.joined(separator: ",") + "}}"
        }
        #expect(try parse(catalogue(StoreConfiguration.maxProducts)).products.count == 10_000)
        #expect(refusal(catalogue(StoreConfiguration.maxProducts + 1)) == "config /etc/rd.json: products: 10001 products, more than the 10000 allowed")
    }

    @Test func secretReferencesAndProductIdsAreNotSecrets() throws {
        let config = try parse("""
        {"appStore": {"sharedSecretFile": "/etc/s", "serverAPI": {"privateKeyEnv": "RD_P8", "keyId": "2X9R4HXF34"}},
         "products": {"theme.keyboard.secret": {"entitlement": "keyboard", "type": "non-consumable"}}}
        """)
        #expect(config.products["theme.keyboard.secret"]?.entitlement == "keyboard")
    }

    @Test func messagesStayOnOneLine() {
        #expect(refusal(#"{"products": {"a\nb": {"entitlement": "pro", "type": "non-consumable"}}}"#)
            == #"config /etc/rd.json: products.a\u{a}b: product id 'a\u{a}b' contains white space or a control character"#)
        #expect(refusal(#"{"products": {"pro": {"entitlement": "a\u2028b", "type": "non-consumable"}}}"#)
            == #"config /etc/rd.json: products.pro.entitlement: an entitlement name 'a\u{2028}b' contains a control character or line break"#)
        do {
            _ = try StoreConfiguration(json: Array("{".utf8), source: "/tmp/a\nb.json")
        } catch {
            #expect("\(error)".hasPrefix(#"config /tmp/a\u{a}b.json: not valid JSON: "#))
        }
    }
}

@Suite("ISO 8601 durations")
struct ConfigurationDurationTests {
    @Test(arguments: [
        ("P1Y", "P1Y"), ("P1M", "P1M"), ("P7D", "P7D"), ("P2W", "P2W"), ("PT12H", "PT12H"), ("P1MT12H", "P1MT12H"),
        ("P1Y2M3W4DT5H6M7S", "P1Y2M3W4DT5H6M7S"), ("PT30M", "PT30M"), ("PT45S", "PT45S"), ("P0D", "P0D"), ("P0Y1M", "P1M"),
    ])
    func parsesAndFormats(_ text: String, _ canonical: String) {
        #expect(ISODuration(text)?.description == canonical)
    }

    @Test(arguments: ["", "P", "PT", "1M", "P1", "PM", "P1H", "PT1D", "P1M1Y", "P1D1D", "P1.5D", "P-1D", "p1m", "P1MT", "P1DT1HT1M",
                      "P1234567890D", " P1D", "P1D "])
    func rejects(_ text: String) {
        #expect(ISODuration(text) == nil)
    }

    @Test func minutesAndMonthsAreTellApartByTheT() {
        #expect(ISODuration("P1M") == ISODuration(months: 1))
        #expect(ISODuration("PT1M") == ISODuration(minutes: 1))
    }

    @Test(arguments: [
        ("2025-01-31T10:00:00Z", "P1M", "2025-02-28T10:00:00Z"),
        ("2024-01-31T10:00:00Z", "P1M", "2024-02-29T10:00:00Z"),  // leap year
        ("2024-02-29T00:00:00Z", "P1Y", "2025-02-28T00:00:00Z"),
        ("2024-02-29T00:00:00Z", "P4Y", "2028-02-29T00:00:00Z"),
        ("2100-01-31T00:00:00Z", "P1M", "2100-02-28T00:00:00Z"),  // not a leap year
        ("2000-01-31T00:00:00Z", "P1M", "2000-02-29T00:00:00Z"),  // a leap year
        ("2025-03-31T00:00:00Z", "P1M", "2025-04-30T00:00:00Z"),
        ("2025-12-15T00:00:00Z", "P1M", "2026-01-15T00:00:00Z"),
        ("2025-11-30T00:00:00Z", "P3M", "2026-02-28T00:00:00Z"),
        ("2025-01-01T00:00:00Z", "P7D", "2025-01-08T00:00:00Z"),
        ("2025-02-27T00:00:00Z", "P2W", "2025-03-13T00:00:00Z"),
        ("2025-01-01T18:00:00Z", "PT12H", "2025-01-02T06:00:00Z"),
        ("2025-01-31T18:00:00Z", "P1MT12H", "2025-03-01T06:00:00Z"),
        ("2025-01-01T00:00:00.250Z", "PT1S", "2025-01-01T00:00:01.250Z"),
    ])
    func adds(_ start: String, _ duration: String, _ end: String) {
        #expect(ISODuration(duration).map { RFC3339.format($0.adding(to: date(start))) } == end)
    }

    @Test func extremeDatesAndLengthsDoNotTrap() throws {
        let longest = try #require(ISODuration("P999999999Y999999999M999999999W999999999DT999999999H999999999M999999999S"))
        #expect(longest.adding(to: date("2025-01-01T00:00:00Z")) > date("2025-01-01T00:00:00Z"))
        #expect(longest.adding(to: Date(timeIntervalSince1970: 1e300)).timeIntervalSince1970 >= 1e300)
        #expect(ISODuration("P1M")?.adding(to: Date(timeIntervalSince1970: -1e300)) != nil)
        #expect(ISODuration("P1M")?.adding(to: date("0001-01-31T00:00:00Z")) == date("0001-02-28T00:00:00Z"))
    }
}

@Suite("Build numbers")
struct ConfigurationVersionNumberTests {
    @Test(arguments: [
        ("9", "10", ComparisonResult.orderedAscending), ("1.2", "1.10", .orderedAscending), ("2", "2.0", .orderedSame),
        ("2.0.0", "2", .orderedSame), ("10", "9", .orderedDescending), ("41", "42", .orderedAscending), ("42", "42", .orderedSame),
        ("1.0", "1.0.1", .orderedAscending), ("007", "7", .orderedSame),
        ("123456789012345678901234567890", "123456789012345678901234567891", .orderedAscending),
    ])
    func compares(_ a: String, _ b: String, _ order: ComparisonResult) {
        #expect(VersionNumber.compare(a, b) == order)
        let reversed: ComparisonResult = order == .orderedAscending ? .orderedDescending : order == .orderedDescending ? .orderedAscending : .orderedSame
        #expect(VersionNumber.compare(b, a) == reversed)
    }

    @Test(arguments: ["1.0b3", "", "1..2", ".1", "1.", " 1", "1 ", "-1", "v2", "1,2", "１"])
    func nonNumericIsNil(_ text: String) {
        #expect(VersionNumber.compare(text, "1") == nil)
        #expect(VersionNumber.compare("1", text) == nil)
    }
}

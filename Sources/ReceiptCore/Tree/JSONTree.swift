import Foundation

/// Trees for the JSON-shaped artefacts: JWS payloads, notifications and verifyReceipt answers.
enum JSONTree {
    /// Members whose numbers are UNIX milliseconds.
    static func isDateKey(_ key: String) -> Bool {
        key.hasSuffix("Date") || key.hasSuffix("_date_ms")
    }

    /// A node per member, keys sorted; dates in milliseconds shown as RFC 3339 too.
    static func node(_ label: String, _ object: JSONObject, now: Date, skip: Set<String> = []) -> TreeNode {
        var node = TreeNode(label)
        for key in object.values.keys.sorted() where !skip.contains(key) {
            let value = object.values[key]
            switch value {
            case let nested as [String: Any]:
                node.children.append(self.node(key, JSONObject(nested, what: "\(object.what).\(key)"), now: now))
            case let array as [Any]:
                var list = TreeNode(key, value: "\(array.count) item\(array.count == 1 ? "" : "s")")
                for (index, element) in array.enumerated() {
                    if let nested = element as? [String: Any] {
                        list.children.append(self.node("\(key)[\(index)]", JSONObject(nested, what: key), now: now))
                    } else {
                        list.children.append(TreeNode("\(key)[\(index)]", value: JSONObject.display(element)))
                    }
                }
                node.children.append(list)
            default:
                var text = JSONObject.display(value)
                var warnings: [TreeWarning] = []
                // A date member that is not a number keeps its raw text.
                if isDateKey(key), let date = try? object.millisecondsDate(key) {
                    text = "\(RFC3339.format(date))  (\(text))"
                    if key == "expiresDate" || key == "expires_date_ms", date < now { warnings.append(TreeWarning(.expired, "expired")) }
                    if key == "revocationDate" { warnings.append(TreeWarning(.revoked, "revoked by Apple")) }
                    if key == "cancellation_date_ms" { warnings.append(TreeWarning(.cancelled, "cancelled (refunded) by Apple")) }
                }
                if key == "environment", let raw = value as? String {
                    let environment = EnvironmentReading.named(raw, source: .jwsEnvironment).environment
                    if environment == .sandbox { warnings.append(TreeWarning(.sandbox, "sandbox: not paid for")) }
                    if environment == .xcode || environment == .localTesting {
                        warnings.append(TreeWarning(.xcode, "\(raw): local StoreKit testing"))
                    }
                }
                if key == "inAppOwnershipType" || key == "in_app_ownership_type", (value as? String) == "FAMILY_SHARED" {
                    warnings.append(TreeWarning(.familyShared, "family shared, not bought by this account"))
                }
                entitlementChange(key, value, object, text: &text, warnings: &warnings)
                node.children.append(TreeNode(key, value: text, warnings: warnings))
            }
        }
        return node
    }

    /// The JWS header: algorithm, key id and the chain's names.
    static func header(_ jws: CompactJWS?) -> TreeNode {
        guard let jws else { return TreeNode("header", value: "none: decoded payload without its JWS") }
        var node = TreeNode("header")
        node.children.append(TreeNode("alg", value: jws.algorithm ?? "(none)"))
        if let kid = jws.keyId { node.children.append(TreeNode("kid", value: kid)) }
        if let chain = jws.x5c {
            var x5c = TreeNode("x5c", value: "\(chain.count) certificate\(chain.count == 1 ? "" : "s")")
            for index in chain.indices {
                // An unreadable certificate is shown as such; verification reports the failure.
                let name = (try? Certificate(der: jws.certificate(at: index)).commonName) ?? "unreadable certificate"
                x5c.children.append(TreeNode("x5c[\(index)]", value: name))
            }
            node.children.append(x5c)
        } else {
            node.children.append(TreeNode("x5c", value: "absent"))
        }
        return node
    }

    /// What the members that change an entitlement mean: the revocation's type and share, an
    /// upgrade, a commitment plan's billing.
    static func entitlementChange(_ key: String, _ value: Any?, _ object: JSONObject, text: inout String, warnings: inout [TreeWarning]) {
        switch key {
        case "revocationType":
            guard let raw = value as? String else { return }
            let percentage = try? object.int("revocationPercentage")  // a malformed share is shown raw on its own line
            let words = RevocationType.describe(raw: raw, percentage: percentage) ?? raw
            text = "\(text)  (\(words))"
            switch RevocationType(rawValue: raw) {
            case .familyRevoke?: warnings.append(TreeWarning(.familyShared, "family sharing revoked: this family member's access ends, not the organiser's purchase"))
            case .refundProrated?: warnings.append(TreeWarning(.revoked, "prorated refund: access is kept for the part not refunded"))
            case .refundFull?, nil: warnings.append(TreeWarning(.revoked, "\(words) by Apple"))
            }
        case "revocationPercentage":
            // A share that is not an integer keeps its raw text (nothing to add).
            if let share = try? object.int(key) { text = "\(text)  (\(RevocationPercentage.format(share)) refunded or revoked)" }
        case "isUpgraded", "is_upgraded":
            if (try? object.bool(key)) == true {  // a value that is not a boolean is shown raw, without the warning
                warnings.append(TreeWarning(.upgraded, "upgraded to another subscription of the group: stops granting at the upgrade"))
            }
        case "billingPlanType", "renewalBillingPlanType":
            if let raw = value as? String { text = "\(text)  (\(BillingPlanType.describe(raw)))" }
        default: return
        }
    }
}

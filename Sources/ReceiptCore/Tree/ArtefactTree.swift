import Foundation

extension DecodedArtefact {
    /// The tree the CLI and the console show for this artefact. `now` decides "expired". Every
    /// format but the legacy receipt (whose `environment` node says it in place) starts with an
    /// `environment evidence` node: the field that told the environment, and whether it is signed.
    public func tree(now: Date) -> TreeNode {
        var root = formatTree(now: now)
        if case .legacy = self { return root }
        let reading = summary.environment
        let value = "\(reading.environment.rawValue) · from \(reading.source.rawValue)"
            + (reading.rawValue.map { " = \($0)" } ?? "") + " · \(reading.signedWord)"
        root.children.insert(TreeNode("environment evidence", value: value), at: 0)
        return root
    }

    private func formatTree(now: Date) -> TreeNode {
        switch self {
        case .unified(let receipt): return receipt.tree(now: now)
        case .legacy(let receipt): return receipt.tree(now: now)
        case .transaction(let t): return Self.jwsTree(.jwsTransaction, t.jws, t.payload, now: now)
        case .renewalInfo(let r): return Self.jwsTree(.jwsRenewalInfo, r.jws, r.payload, now: now)
        case .appTransaction(let a): return Self.jwsTree(.jwsAppTransaction, a.jws, a.payload, now: now)
        case .notification(let n): return Self.notificationTree(n, now: now)
        case .verifyReceiptResponse(let response): return Self.verifyReceiptTree(response, now: now)
        }
    }

    private static func jwsTree(_ format: ArtefactFormat, _ jws: CompactJWS?, _ payload: JSONObject, now: Date) -> TreeNode {
        TreeNode(format.displayName, children: [JSONTree.header(jws), JSONTree.node("payload", payload, now: now)])
    }

    private static func notificationTree(_ n: ServerNotification, now: Date) -> TreeNode {
        var payload = JSONTree.node("payload", n.payload, now: now, skip: ["data", "appData"])
        if let data = try? n.payload.object("data") {  // decoding already checked `data` is an object
            var dataNode = JSONTree.node("data", data, now: now, skip: ["signedTransactionInfo", "signedRenewalInfo"])
            if let t = n.transaction {
                var node = jwsTree(.jwsTransaction, t.jws, t.payload, now: now)
                node.label = "signedTransactionInfo"
                dataNode.children.append(node)
            }
            if let r = n.renewalInfo {
                var node = jwsTree(.jwsRenewalInfo, r.jws, r.payload, now: now)
                node.label = "signedRenewalInfo"
                dataNode.children.append(node)
            }
            payload.children.append(dataNode)
        }
        if let appData = try? n.payload.object("appData") {  // decoding already checked `appData` is an object
            var dataNode = JSONTree.node("appData", appData, now: now, skip: ["signedAppTransactionInfo"])
            if let a = n.appData?.appTransaction {
                var node = jwsTree(.jwsAppTransaction, a.jws, a.payload, now: now)
                node.label = "signedAppTransactionInfo"
                dataNode.children.append(node)
            }
            payload.children.append(dataNode)
        }
        return TreeNode(ArtefactFormat.notification.displayName, children: [JSONTree.header(n.jws), payload])
    }

    private static func verifyReceiptTree(_ response: VerifyReceiptResponse, now: Date) -> TreeNode {
        var root = JSONTree.node(ArtefactFormat.verifyReceiptResponse.displayName, response.body, now: now)
        if let index = root.children.firstIndex(where: { $0.label == "status" }) {
            root.children[index].value = "\(response.status): \(VerifyReceiptStatus.meaning(response.status))"
        }
        if let index = root.children.firstIndex(where: { $0.label == "receipt" }),
           let inApp = root.children[index].children.firstIndex(where: { $0.label == "in_app" }),
           root.children[index].children[inApp].children.isEmpty {
            root.children[index].children[inApp].warnings.append(.emptyPurchaseList)
        }
        return root
    }
}

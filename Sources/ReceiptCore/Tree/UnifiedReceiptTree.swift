import Foundation

extension AppReceipt {
    private static let appDateFields: Set<Int> = [8, 12, 18, 21]
    private static let inAppDateFields: Set<Int> = [1704, 1706, 1708, 1712]

    /// The receipt as a tree: every attribute in receipt order with Apple's name and number, the
    /// in-app purchases grouped, and warnings (sandbox, expired, cancelled, unknown attribute,
    /// the sandbox's constant original version, an empty purchase list). `now` decides "expired".
    public func tree(now: Date) -> TreeNode {
        var root = TreeNode(ArtefactFormat.unified.displayName)
        let environment = self.environment.environment
        var inAppNode: TreeNode?
        var inAppPosition = 0
        for attribute in attributes {
            if attribute.type == 17 {
                if inAppNode == nil { inAppPosition = root.children.count; inAppNode = TreeNode("in_app", attribute: 17) }
                continue
            }
            var node = Self.node(attribute, names: ReceiptFieldNames.app, dates: Self.appDateFields, payload: payload)
            switch attribute.type {
            case 0 where environment == .sandbox:
                node.warnings.append(TreeWarning(.sandbox, "sandbox receipt: purchases here were not paid for"))
            case 0 where environment == .xcode:
                node.warnings.append(TreeWarning(.xcode, "Xcode StoreKit Testing receipt"))
            case 19 where originalAppVersion == "1.0" && environment != .production:
                node.warnings.append(TreeWarning(.sandboxVersionConstant, "sandbox constant \"1.0\", not the customer's first version"))
            default: break
            }
            root.children.append(node)
        }
        var purchases = inAppNode ?? TreeNode("in_app", attribute: 17)
        if inAppNode == nil { inAppPosition = root.children.count }
        purchases.value = "\(inApp.count) purchase\(inApp.count == 1 ? "" : "s")"
        if inApp.isEmpty { purchases.warnings.append(.emptyPurchaseList) }
        purchases.children = inApp.enumerated().map { index, purchase in Self.node(purchase, index: index, now: now, payload: payload) }
        root.children.insert(purchases, at: inAppPosition)
        return root
    }

    private static func node(_ purchase: InAppPurchase, index: Int, now: Date, payload: [UInt8]) -> TreeNode {
        var node = TreeNode("in_app[\(index)]", attribute: 17,
                            value: [purchase.transactionId, purchase.productId].compactMap { $0 }.joined(separator: "  "))
        for attribute in purchase.attributes {
            var child = Self.node(attribute, names: ReceiptFieldNames.inApp, dates: inAppDateFields, payload: payload)
            if attribute.type == 1708, let expires = purchase.expiresDate, expires < now {
                child.warnings.append(TreeWarning(.expired, "expired"))
            }
            if attribute.type == 1712, purchase.cancellationDate != nil {
                child.warnings.append(TreeWarning(.cancelled, "cancelled (refunded) by Apple"))
            }
            node.children.append(child)
        }
        return node
    }

    private static func node(_ attribute: ReceiptAttribute, names: [Int: String], dates: Set<Int>, payload: [UInt8]) -> TreeNode {
        let name = names[attribute.type] ?? (ReceiptFieldNames.reserved.contains(attribute.type) ? "reserved" : "unknown")
        var value = attribute.displayValue(in: payload)
        if dates.contains(attribute.type), let date = attribute.dateValue(in: payload) { value = RFC3339.format(date) }
        var node = TreeNode(name, attribute: attribute.type, value: value)
        if name == "unknown" {
            node.warnings.append(TreeWarning(.unknownAttribute, "unknown attribute, kept raw"))
        }
        return node
    }
}

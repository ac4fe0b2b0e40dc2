/// A labelled tree of what an artefact says, built once by the core and rendered by both the
/// command line and the console, so both show the same names, numbers and warnings.
public struct TreeNode: Sendable, Equatable {
    /// Apple's name for the field (`bundle_id`, `transactionId`) or a heading (`in_app`).
    public var label: String
    /// Apple's attribute number, where the format has one (2 for bundle_id, 1703 for transaction id).
    public var attribute: Int?
    /// The value, formatted for reading (dates in RFC 3339 UTC).
    public var value: String?
    /// What deserves attention about this node.
    public var warnings: [TreeWarning]
    public var children: [TreeNode]

    public init(_ label: String, attribute: Int? = nil, value: String? = nil,
                warnings: [TreeWarning] = [], children: [TreeNode] = []) {
        self.label = label
        self.attribute = attribute
        self.value = value
        self.warnings = warnings
        self.children = children
    }

    /// Every warning in this node and below, depth first.
    public var allWarnings: [TreeWarning] { warnings + children.flatMap(\.allWarnings) }

    /// The first node (depth first, this one included) with this label.
    public func first(labelled name: String) -> TreeNode? {
        if label == name { return self }
        for child in children { if let found = child.first(labelled: name) { return found } }
        return nil
    }
}

/// Something a support person should notice, with the words to show.
public struct TreeWarning: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case sandbox, xcode, expired, cancelled, revoked, unknownAttribute, emptyPurchaseList,
             sandboxVersionConstant, signature, familyShared, environmentMismatch, upgraded
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The advice for a receipt with no purchases in it.
    public static let emptyPurchaseList = TreeWarning(
        .emptyPurchaseList,
        "no in-app purchases in this receipt: it probably predates the purchase; ask the customer to restore purchases so the app refreshes its receipt")
}

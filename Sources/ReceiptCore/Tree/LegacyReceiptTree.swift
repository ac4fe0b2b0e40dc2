import Foundation

extension LegacyReceipt {
    /// The receipt as a labelled tree: the envelope keys in the order written (the signature
    /// summarised as "version 2, 128-byte signature, leaf PurchaseReceiptCertificate"), and under
    /// `purchase-info` every key and value in order, millisecond values followed by their date.
    ///
    /// Warnings: sandbox (on `environment`), unsigned (on a missing `signature`), expired (the
    /// expiry is before `now`) and cancelled (on the key that carries the date).
    public func tree(now: Date) -> TreeNode {
        var children: [TreeNode] = []
        for entry in envelope {
            switch entry.key {
            case "signature":
                children.append(TreeNode("signature", value: signatureSummary))
            case "purchase-info":
                children.append(purchaseInfoNode(now: now))
            case "environment":
                children.append(environmentNode)
            default:
                children.append(TreeNode(entry.key, value: entry.value.displayText))
            }
        }
        if signature == nil {
            children.append(TreeNode("signature", value: "absent",
                                     warnings: [TreeWarning(.signature, "unsigned: nothing proves Apple wrote this receipt")]))
        }
        if environmentRaw == nil {
            children.append(environmentNode)
        }
        return TreeNode("legacy receipt", value: "iOS 6 transaction receipt", children: children)
    }

    private var signatureSummary: String {
        guard let blob = signature else { return "absent" }
        let leaf = blob.leafCommonName ?? "unreadable certificate"
        return "version \(blob.version), \(blob.signature.count)-byte signature, leaf \(leaf)"
    }

    /// The envelope's `environment` key: an unsigned claim, shown beside what the signed
    /// purchase-info says, with MISMATCH when the two disagree.
    private var environmentNode: TreeNode {
        let reading = environment
        let claimed = reading.claim?.environment ?? .production
        let evidence = environmentEvidence
        let signedWord = signature == nil ? "purchase-info (unsigned here)" : "signed purchase-info"
        let value = (environmentRaw ?? "absent (claims Production)")
            + " · unsigned claim; \(signedWord): \(evidence.description) → \(evidence.environment.rawValue)"
        var warnings: [TreeWarning] = []
        if reading.isMismatch {
            warnings.append(TreeWarning(.environmentMismatch,
                "MISMATCH: the unsigned envelope claims \(claimed.rawValue), the signed purchase-info says otherwise; treated as sandbox"))
        }
        if reading.environment == .sandbox {
            warnings.append(TreeWarning(.sandbox, "sandbox purchase: a test, no money was charged"))
        }
        return TreeNode("environment", value: value, warnings: warnings)
    }

    private func purchaseInfoNode(now: Date) -> TreeNode {
        let expiresKey = firstPresent(["expires-date-ms", "expires-date", "expires-date-formatted"])
        let cancellationKey = firstPresent(["cancellation-date-ms", "cancellation-date"])
        var children: [TreeNode] = []
        for entry in purchaseInfo {
            var warnings: [TreeWarning] = []
            if entry.key == expiresKey, let expiresDate, expiresDate < now {
                warnings.append(TreeWarning(.expired, "expired \(RFC3339.format(expiresDate))"))
            }
            if entry.key == cancellationKey, let cancellationDate {
                warnings.append(TreeWarning(.cancelled, "cancelled \(RFC3339.format(cancellationDate))"))
            }
            children.append(TreeNode(entry.key, value: Self.display(entry), warnings: warnings))
        }
        return TreeNode("purchase-info", value: "\(purchaseInfo.count) \(purchaseInfo.count == 1 ? "key" : "keys"), \(purchaseInfoBytes.count) bytes signed",
                        children: children)
    }

    /// The first of `keys` that the purchase-info holds with a non-empty value.
    private func firstPresent(_ keys: [String]) -> String? {
        keys.first { !(purchaseInfoValue($0) ?? "").isEmpty }
    }

    /// The value as written; a millisecond value also shows its date.
    private static func display(_ entry: PlistEntry) -> String {
        let text = entry.value.displayText
        let timed = entry.key.hasSuffix("-ms") || entry.key == "expires-date" || entry.key == "cancellation-date"
        guard timed, (1...15).contains(text.utf8.count), text.utf8.allSatisfy({ (48...57).contains($0) }),
              let ms = Int64(text) else { return text }
        return "\(text) (\(RFC3339.format(RFC3339.fromMilliseconds(Double(ms)))))"
    }
}

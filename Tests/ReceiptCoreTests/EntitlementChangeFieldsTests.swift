import Foundation
import ReceiptCore
import Testing

/// The fields that change what a transaction grants: `revocationType` / `revocationPercentage`
/// (API 1.19), `isUpgraded` / `is_upgraded`, `inAppOwnershipType`, and the 12-month commitment
/// plan's `billingPlanType` / `commitmentInfo` (API 1.21), on Apple's own sample payloads.
@Suite("Entitlement change fields")
struct EntitlementChangeFieldsTests {
    static func transaction(_ json: String) throws -> SignedTransaction {
        try SignedTransaction(payload: JSONObject(parsing: Array(json.utf8), what: "test payload"))
    }

    @Test("Apple's sample transaction: isUpgraded, billingPlanType and commitmentInfo")
    func appleSampleTransaction() throws {
        let artefact = try ReceiptDecoder.decode(try SampleFiles.bytes("transaction-payload.json"))
        guard case .transaction(let t) = artefact else { Issue.record("not a transaction: \(artefact.format)"); return }
        let p = t.purchase
        #expect(p.isUpgraded == true)
        #expect(p.ownership == .purchased && p.ownershipType == "PURCHASED")
        #expect(p.billingPlanTypeRaw == "MONTHLY" && p.billingPlanType == .monthly)
        let c = try #require(p.commitment)
        #expect(c.billingPeriodNumber == 3 && c.totalBillingPeriods == 12 && c.commitmentPrice == 119_880)
        #expect(c.commitmentExpiresDate == SampleFiles.ms(1_698_150_000_000))
        #expect(c.periodsLeft == 9)
        #expect(c.describe(currency: "USD", day: { RFC3339.format($0) })
                == "period 3 of 12, 9 left, commitment ends 2023-10-24T12:20:00Z, commitment price 119.88 USD")
        #expect(p.revocationTypeRaw == nil && p.revocationPercentage == nil)
    }

    @Test("Apple's sample revoked transaction: REFUND_PRORATED at 50%")
    func appleSampleRevocation() throws {
        let artefact = try ReceiptDecoder.decode(try SampleFiles.bytes("transaction-with-revocation-payload.json"))
        guard case .transaction(let t) = artefact else { Issue.record("not a transaction: \(artefact.format)"); return }
        #expect(t.purchase.revocationTypeRaw == "REFUND_PRORATED" && t.purchase.revocationType == .refundProrated)
        #expect(t.purchase.revocationPercentage == 50_000)
        #expect(RevocationType.describe(raw: t.purchase.revocationTypeRaw, percentage: t.purchase.revocationPercentage) == "prorated refund 50%")
    }

    @Test("Apple's sample renewal info: renewalBillingPlanType, commitmentInfo, a different autoRenewProductId")
    func appleSampleRenewalInfo() throws {
        let renewal = try RenewalInfo(payload: JSONObject(parsing: try SampleFiles.bytes("renewal-info-payload.json"), what: "renewal"))
        #expect(renewal.renewalBillingPlanTypeRaw == "MONTHLY" && renewal.renewalBillingPlanType == .monthly)
        let c = try #require(renewal.commitment)
        #expect(c.autoRenewProductId == "com.example.product.commitment" && c.autoRenewStatus == 1)
        #expect(c.renewalBillingPlanType == .monthly && c.renewalPrice == 9_990)
        #expect(c.renewalDate == SampleFiles.ms(1_698_149_500_000))
        #expect(renewal.changesProductAtRenewal, "autoRenewProductId com.example.product.2 differs from productId")
    }

    @Test("unknown raw values decode and are kept")
    func unknownValuesKept() throws {
        let t = try Self.transaction("""
            {"transactionId":"1","productId":"p","revocationType":"REFUND_SOMEDAY","revocationPercentage":"12345",
             "inAppOwnershipType":"BORROWED","billingPlanType":"QUARTERLY","isUpgraded":"false"}
            """)
        #expect(t.purchase.revocationTypeRaw == "REFUND_SOMEDAY" && t.purchase.revocationType == nil)
        #expect(t.purchase.revocationPercentage == 12_345)
        #expect(t.purchase.ownershipType == "BORROWED" && t.purchase.ownership == nil)
        #expect(t.purchase.billingPlanTypeRaw == "QUARTERLY" && t.purchase.billingPlanType == nil)
        #expect(t.purchase.isUpgraded == false)
        #expect(RevocationType.describe(raw: "REFUND_SOMEDAY", percentage: 12_345) == "revocation type REFUND_SOMEDAY 12.345%")
        #expect(BillingPlanType.describe("QUARTERLY") == "billing plan QUARTERLY")
    }

    @Test("a malformed field says which and where")
    func malformedFields() throws {
        #expect(throws: ReceiptError.self) { try Self.transaction(#"{"transactionId":"1","commitmentInfo":"soon"}"#) }
        #expect(throws: ReceiptError.self) { try Self.transaction(#"{"transactionId":"1","commitmentInfo":{"billingPeriodNumber":"third"}}"#) }
        #expect(throws: ReceiptError.self) { try Self.transaction(#"{"transactionId":"1","isUpgraded":"perhaps"}"#) }
        do {
            _ = try Self.transaction(#"{"transactionId":"1","commitmentInfo":{"billingPeriodNumber":"third"}}"#)
        } catch let error as ReceiptError {
            #expect("\(error)".contains("commitmentInfo") && "\(error)".contains("billingPeriodNumber"), "\(error)")
        }
    }

    @Test("revocation percentages in Apple's milliunits", arguments: [
        (Int64(67_932), "67.932%"), (15, "0.015%"), (40_000, "40%"), (100_000, "100%"), (50_500, "50.5%"), (0, "0%"),
    ])
    func percentageText(_ value: Int64, _ text: String) {
        #expect(RevocationPercentage.format(value) == text)
    }

    @Test("kept share is clamped to 0…1")
    func keptFraction() {
        #expect(RevocationPercentage.keptFraction(40_000) == 0.6)
        #expect(RevocationPercentage.keptFraction(-5) == 1)
        #expect(RevocationPercentage.keptFraction(250_000) == 0)
    }

    @Test("verifyReceipt entries: is_upgraded and in_app_ownership_type")
    func verifyReceiptEntry() throws {
        let body = #"""
            {"status":0,"environment":"Sandbox","latest_receipt_info":[{"transaction_id":"2","original_transaction_id":"1",
             "product_id":"pro.monthly","is_upgraded":"true","in_app_ownership_type":"FAMILY_SHARED","purchase_date_ms":"1700000000000"}]}
            """#
        let response = try VerifyReceiptResponse(json: Array(body.utf8))
        let entry = try #require(response.latestReceiptInfo.first)
        #expect(entry.isUpgraded == true && entry.ownership == .familyShared)
    }

    @Test("the tree says what a prorated refund, an upgrade and a commitment mean")
    func treeWords() throws {
        let artefact = try ReceiptDecoder.decode(try SampleFiles.bytes("transaction-with-revocation-payload.json"))
        let tree = artefact.tree(now: SampleFiles.ms(1_698_148_960_000))
        let type = try #require(tree.first(labelled: "revocationType"))
        #expect(type.value == #""REFUND_PRORATED"  (prorated refund 50%)"#)
        #expect(type.warnings.contains { $0.message.contains("access is kept for the part not refunded") })
        #expect(tree.first(labelled: "revocationPercentage")?.value == "50000  (50% refunded or revoked)")
        #expect(tree.first(labelled: "isUpgraded")?.warnings.first?.kind == .upgraded)
    }

    @Test("decode --json carries the fields")
    func reportCarriesThem() throws {
        let artefact = try ReceiptDecoder.decode(try SampleFiles.bytes("transaction-with-revocation-payload.json"))
        let report = DecodeReport.json(artefact, verdict: ReceiptVerifier(trust: SampleFiles.apple).verify(artefact), now: Date(timeIntervalSince1970: 1_800_000_000))
        guard case .array(let purchases) = report["purchases"], let p = purchases.first else { Issue.record("no purchases"); return }
        #expect(p["revocationType"] == .string("REFUND_PRORATED") && p["revocationPercentage"] == .int(50_000))
        #expect(p["isUpgraded"] == .bool(true) && p["ownershipType"] == .string("PURCHASED"))
    }
}

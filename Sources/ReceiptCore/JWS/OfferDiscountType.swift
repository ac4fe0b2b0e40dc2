/// How an offer discounts a subscription (`offerDiscountType` of transactions and renewal infos).
/// Artefacts keep the raw string beside it, so a value added later decodes.
public enum OfferDiscountType: String, Sendable, CaseIterable {
    case freeTrial = "FREE_TRIAL"
    case payAsYouGo = "PAY_AS_YOU_GO"
    case payUpFront = "PAY_UP_FRONT"
    case oneTime = "ONE_TIME"

    /// A few words for the console: "free trial", "pay as you go", …
    public var words: String { rawValue.lowercased().replacingOccurrences(of: "_", with: " ") }
}

/// A count with its noun in the number it asks for: one is singular, anything else (zero
/// included) plural, as English has it ("1 transaction", "0 transactions", "2 entries"). Every
/// count the command line and the console print with a noun goes through it, so none says
/// "1 rows" or "transaction(s)".
public enum Plural {
    /// "1 transaction", "3 transactions"; `plural` for a noun that is not made by adding "s"
    /// ("entry", "entries").
    public static func of<N: BinaryInteger>(_ count: N, _ singular: String, _ plural: String? = nil) -> String {
        "\(count) " + noun(count, singular, plural)
    }

    /// The noun alone, in the number `count` asks for: for a count written apart from its noun
    /// ("3 of 4 transactions").
    public static func noun<N: BinaryInteger>(_ count: N, _ singular: String, _ plural: String? = nil) -> String {
        count == 1 ? singular : plural ?? singular + "s"
    }
}

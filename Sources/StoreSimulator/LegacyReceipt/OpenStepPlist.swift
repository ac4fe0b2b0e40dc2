/// Writes a flat dictionary of strings in the OpenStep (old-style) property list form Apple used
/// for iOS 6 transaction receipts, keys in the order given:
///
///     {
///     	"transaction-id" = "1000000046178817";
///     	"quantity" = "1";
///     }
///
/// One tab before each entry, `"key" = "value";`, LF line ends, no newline after the closing brace.
enum OpenStepPlist {
    static func write(_ entries: [(key: String, value: String)]) -> String {
        var text = "{\n"
        for entry in entries {
            text += "\t" + quoted(entry.key) + " = " + quoted(entry.value) + ";\n"
        }
        return text + "}"
    }

    /// A quoted string with `"` and `\` escaped, as OpenStep plists require.
    private static func quoted(_ text: String) -> String {
        var out = "\""
        for character in text {
            if character == "\"" || character == "\\" { out.append("\\") }
            out.append(character)
        }
        return out + "\""
    }
}

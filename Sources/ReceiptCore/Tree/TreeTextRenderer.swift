/// Renders a `TreeNode` as indented text lines for the command line.
public enum TreeTextRenderer {
    /// One line per node: label, `(attribute)`, value, then `⚠ warning`s.
    public static func lines(_ node: TreeNode, indent: Int = 0) -> [String] {
        var line = String(repeating: "  ", count: indent) + node.label
        if let attribute = node.attribute { line += " (\(attribute))" }
        if let value = node.value { line += ": " + value }
        for warning in node.warnings { line += "  ⚠ " + warning.message }
        return [line] + node.children.flatMap { lines($0, indent: indent + 1) }
    }
}

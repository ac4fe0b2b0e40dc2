import ReceiptCore

/// The DER/BER reader: parses one value, walks every nested value (children of constructed
/// values, and OCTET STRINGs that hold DER), reads each primitive as INTEGER, OID, octets and
/// string, and tries the input as a PKCS#7 SignedData.
enum FuzzTarget {
    static func run(_ bytes: [UInt8]) {
        var reader = ASN1Reader(bytes)
        var budget = 10_000
        while !reader.isAtEnd, budget > 0 {
            // Errors are the expected answer to most fuzz input; only a crash is a finding.
            guard let node = try? reader.read("fuzz") else { break }
            walk(node, budget: &budget)
        }
        _ = try? SignedData(berEncoded: bytes)
    }

    static func walk(_ node: ASN1Node, budget: inout Int) {
        budget -= 1
        guard budget > 0 else { return }
        _ = node.content.count
        _ = node.encoded.count
        if node.tag.isConstructed {
            var children = node.children()
            while !children.isAtEnd, budget > 0 {
                guard let child = try? children.read("child") else { return }
                walk(child, budget: &budget)
            }
            _ = try? children.finish("children")
        } else {
            _ = try? node.integer("integer")
            _ = try? node.objectIdentifier("oid")
            _ = try? node.string("string")
            if let octets = try? node.octets("octets"), octets.first == 0x30 || octets.first == 0x31 {
                if let inner = try? ASN1Reader.parseSingle(octets, "nested DER") { walk(inner, budget: &budget) }
            }
        }
    }

    static func seeds() throws -> [[UInt8]] { try FuzzSeeds.unified() }
}

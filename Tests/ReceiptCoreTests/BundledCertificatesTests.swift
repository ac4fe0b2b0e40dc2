import Foundation
import Testing
@testable import ReceiptCore

@Suite("Bundled certificates")
struct BundledCertificatesTests {
    static let assets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Assets/Certificates")

    @Test func embeddedCertificatesMatchAssets() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.assets.path).filter { $0.hasSuffix(".cer") }.sorted()
        #expect(files.sorted() == BundledCertificates.base64.keys.sorted(), "run `make certificates`")
        for file in files {
            let onDisk = try Data(contentsOf: Self.assets.appendingPathComponent(file))
            #expect(BundledCertificates.base64[file] == onDisk.base64EncodedString(), "\(file) differs: run `make certificates`")
        }
    }

    @Test func appleRootsHaveTheirPublishedFingerprints() throws {
        let store = try TrustStore.apple()
        let fingerprints = store.anchors.map(\.certificate.fingerprint)
        #expect(fingerprints.contains("b0b1730ecbc7ff4505142c49f1295e6eda6bcaed7e2c68c5be91b5a11001f024"))
        #expect(fingerprints.contains("63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179"))
        #expect(store.legacyIntermediates.map(\.fingerprint) == [
            "447ad65484610f20fdc33804c8597a1e208fbe4ef9c5653485cc7d3df730c016",  // Apple iTunes Store CA (version-2 blobs)
            "ce057691d730f89ca25e916f7335f4c8a15713dcd273a658c024023f8eb809c2",  // Apple WWDR CA G1 (version-3 blobs)
        ])
        #expect(store.legacyIntermediates.map(\.commonName) == ["Apple iTunes Store Certification Authority",
                                                                "Apple Worldwide Developer Relations Certification Authority"])
        #expect(store.storeKitTesting?.fingerprint == "ff0ba36e721d2db741d2aa11e6112ef78bf7131b46c7f035b00891d045c864fe")
        #expect(store.anchors.allSatisfy { $0.isBundledApple })
    }
}

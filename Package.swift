// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "receiptdesk",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "receiptdesk", targets: ["receiptdesk"]),
        .library(name: "ReceiptCore", targets: ["ReceiptCore"]),
    ],
    targets: [
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "libcrypto",
                       providers: [.apt(["libssl-dev"])]),
        .target(name: "ReceiptCore", dependencies: ["COpenSSL"], path: "Sources/ReceiptCore"),
        .target(name: "StoreSimulator", dependencies: ["ReceiptCore"], path: "Sources/StoreSimulator"),
        .executableTarget(name: "receiptdesk", dependencies: ["ReceiptCore", "StoreSimulator"],
                          path: "Sources/receiptdesk"),
        .testTarget(name: "ReceiptCoreTests", dependencies: ["ReceiptCore", "StoreSimulator"],
                    path: "Tests/ReceiptCoreTests"),
        .testTarget(name: "ReceiptDeskCLITests", dependencies: ["receiptdesk", "ReceiptCore", "StoreSimulator"],
                    path: "Tests/ReceiptDeskCLITests"),
        .testTarget(name: "StoreSimulatorTests", dependencies: ["StoreSimulator", "ReceiptCore"],
                    path: "Tests/StoreSimulatorTests"),
    ]
)

// swift-tools-version:6.0
// A small app that uses Shiying only through its public async API, the way
// an app developer would: a path dependency on the repository root. Run by
// `make test` (see the Makefile); it exits non-zero when a check fails.
import Foundation
import PackageDescription

// A path dependency's identity is its folder's name, whatever the clone is called.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized

let package = Package(
    name: "APIClientApp",
    dependencies: [.package(path: root.path)],
    targets: [
        .executableTarget(name: "APIClientApp",
                          dependencies: ["Shiying", "ShiyingLibrary", "ShiyingOrganize"].map {
                              .product(name: $0, package: root.lastPathComponent)
                          },
                          path: "Sources"),
    ]
)

// Undoing a compression (SPEC D5). A compression is a conversion (SPEC S3): a
// smaller copy deposited in 「拾映转换」 beside the untouched original, which
// stays in the library view as it was. Undo keeps the original and puts the
// compressed copy in set-aside (放一边), where deleting it is the user's call (D1).
import Foundation

/// What undoing a compression did, with the toast as data.
public struct LibraryCompressionUndo: Sendable, Codable, Hashable {
    /// The compressed copy, now in set-aside.
    public var compressedID: Int64
    /// The original, kept (taken off set-aside if it was there).
    public var originalID: Int64
    /// SPEC D5's toast, shown without a button and dismissed on its own.
    public var message: String
    /// What VoiceOver reads (the same sentence, SPEC D5).
    public var voiceOver: String
}

extension PhotoLibrary {
    /// SPEC D5: the toast after undoing a compression, exactly.
    public static let compressionUndoneMessage = "已保留原始檔，壓縮版本已在『放一邊』"

    /// SPEC D5: undoes the compression that made asset `compressedID`: the
    /// original it was made from stays (and leaves set-aside if it was there),
    /// the compressed copy goes to set-aside. Both in one write; no file moves.
    /// Undoing twice gives the same result.
    /// - Throws: `LibraryError.unknownAsset` (no such asset, or in Recently
    ///   Deleted); `.invalid` when the asset is not a copy made from a library
    ///   asset, or its original is no longer in the library (nothing to keep).
    public func undoCompression(_ compressedID: Int64) throws -> LibraryCompressionUndo {
        let copy = try asset(compressedID)
        guard copy.deletedAtMs == nil else { throw LibraryError.unknown(compressedID) }
        guard copy.origin == .conversion, let originalID = copy.sourceAssetID else {
            throw LibraryError(.invalid, "asset \(compressedID) is not a compressed copy of a library asset")
        }
        guard let original = try assets([originalID]).first, original.deletedAtMs == nil else {
            throw LibraryError(.invalid, "the original of asset \(compressedID) (asset \(originalID)) is no longer in the library")
        }
        let now = clock()
        try write { s in
            try s.execute("DELETE FROM library_set_aside WHERE asset_id = ?", [.integer(originalID)])
            try s.execute("INSERT OR IGNORE INTO library_set_aside(asset_id, set_aside_at_ms) VALUES (?, ?)",
                          [.integer(compressedID), .integer(now)])
        }
        return LibraryCompressionUndo(compressedID: compressedID, originalID: originalID,
                                      message: Self.compressionUndoneMessage, voiceOver: Self.compressionUndoneMessage)
    }
}

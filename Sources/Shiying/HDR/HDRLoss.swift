import Foundation
internal import CShiying

/// Why an edit would lose the HDR gain map (SPEC E6): the only cases in which
/// the `onHDRLoss` hook is asked.
public enum HDRLossReason: String, Sendable, Codable, Equatable {
    /// The output format has no gain maps (PNG), or no equivalent for this form.
    case unsupportedTarget
    /// The gain map is there but does not decode.
    case unreadableGainMap
    /// A gain-map form we can see but do not interpret (e.g. an ISO 21496-1 `tmap` item).
    case uninterpretableGainMap
    /// An HDR movie (HLG, PQ) re-encoded: the encoder writes 8 bits, the frames become SDR.
    case hdrVideo

    init?(_ c: sy_hdr_loss_reason) {
        switch c {
        case SY_HDR_LOSS_UNSUPPORTED_TARGET: self = .unsupportedTarget
        case SY_HDR_LOSS_UNREADABLE_GAIN_MAP: self = .unreadableGainMap
        case SY_HDR_LOSS_UNINTERPRETABLE: self = .uninterpretableGainMap
        case SY_HDR_LOSS_HDR_VIDEO: self = .hdrVideo
        default: return nil
        }
    }
}

/// An HDR save that was refused: nothing was written and an existing output is untouched.
public enum HDRLossError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The hook answered `false`.
    case declined(HDRLossReason, detail: String)
    /// No hook was supplied, so SDR was never an option.
    case noConsentHook(HDRLossReason, detail: String)

    /// Why the gain map could not be kept.
    public var reason: HDRLossReason {
        switch self {
        case .declined(let r, _), .noConsentHook(let r, _): r
        }
    }

    private func lost(_ r: HDRLossReason) -> String {
        switch r {
        case .hdrVideo: "the movie's HDR would be lost"
        case .unreadableGainMap: "the HDR gain map cannot be read, so it would be lost"
        case .uninterpretableGainMap: "the HDR gain map is in a form that cannot be carried, so it would be lost"
        case .unsupportedTarget: "the HDR gain map would be lost"
        }
    }

    public var description: String {
        switch self {
        case .declined(let r, let d): "\(lost(r)): \(d); the SDR save was declined, nothing was written"
        case .noConsentHook(let r, let d): "\(lost(r)): \(d); nothing was written without consent to an SDR save"
        }
    }
}

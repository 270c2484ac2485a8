import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A model file in the cache, checked against the registry's size and sha256.
///
/// Hashing a 14 MB model on every load would cost more than loading it, so a successful check is remembered in
/// `<file>.verified` with the file's size and modification time (as git's index remembers the stat data of checked
/// files): the hash is computed again only when the file changed or the record is missing. A file whose size is
/// wrong is corrupt without hashing.
struct ModelCacheEntry {
    let file: URL
    let size: Int
    let sha256: String

    enum State: Equatable {
        case missing, verified, corrupt
    }

    private var record: URL { URL(fileURLWithPath: file.path + ".verified") }

    /// Whether the file is there and matches the registry (hashing it when it is not known to).
    func state() -> State {
        guard let stamp = Self.stamp(file.path) else { return .missing }
        guard stamp.size == size else { return .corrupt }
        if let recorded = try? String(contentsOf: record, encoding: .utf8), recorded == stamp.text(sha256) { return .verified }
        guard let digest = Self.digest(file), digest == sha256 else { return .corrupt }
        rememberVerified()
        return .verified
    }

    /// Records that the file as it is now has the registry's hash (after `fetch` checked it).
    func rememberVerified() {
        guard let stamp = Self.stamp(file.path) else { return }
        try? Data(stamp.text(sha256).utf8).write(to: record, options: .atomic)
    }

    /// Deletes the record of a check (the file is about to change or go).
    func forgetVerification() {
        unlink(record.path)
    }

    /// Deletes the file and its record.
    func remove() {
        forgetVerification()
        unlink(file.path)
    }

    /// A file's size and modification time in nanoseconds.
    private struct Stamp {
        let size: Int
        let modified: Int
        func text(_ sha256: String) -> String { "\(size) \(modified) \(sha256)\n" }
    }

    private static func stamp(_ path: String) -> Stamp? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Stamp(size: Int(info.st_size), modified: Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec))
    }

    private static func digest(_ file: URL) -> String? {
        guard let handle = FileHandle(forReadingAtPath: file.path) else { return nil }
        defer { try? handle.close() }
        var hasher = SHA256()
        while true {
            let chunk = handle.readData(ofLength: 1 << 20)
            if chunk.isEmpty { break }
            chunk.withUnsafeBytes { hasher.update($0) }
        }
        return hasher.finalizeHex()
    }

    /// An exclusive advisory lock (`flock`) on a file beside the cache entry, held by one fetch at a time across
    /// processes (and threads: each lock opens the file itself). The kernel drops it if the process dies.
    final class Lock {
        private let descriptor: Int32

        init(_ url: URL) throws {
            descriptor = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw TaskError.io("cannot open the cache lock \(url.path): \(String(cString: strerror(errno)))") }
            while flock(descriptor, LOCK_EX) != 0 {
                guard errno == EINTR else {
                    let reason = String(cString: strerror(errno))
                    close(descriptor)
                    throw TaskError.io("cannot lock \(url.path): \(reason)")
                }
            }
        }

        func release() {
            flock(descriptor, LOCK_UN)
            close(descriptor)
        }
    }
}

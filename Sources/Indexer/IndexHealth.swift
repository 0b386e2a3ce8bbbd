import Foundation
import SearchIndex

/// Notices damage done to an index behind Xapian's back — a truncated table, a block overwritten by a stray
/// `dd`, a restore of one file — without reading the whole index every time.
///
/// Writers record the table files of the generation they committed (name, size, inode, modification time) in
/// `<root>/check-state`. Before a writer trusts an index it compares the files with that record: a few `stat`
/// calls. Only a change no writer recorded runs Xapian's full check (``SearchableIndex/damage(at:)``, which reads
/// every table); a sound index is recorded again, a damaged one is rebuilt.
struct IndexHealth {
    let location: IndexLocation

    /// The table files of `generation` as they are now, one line each; nil if the directory cannot be read.
    func signature(of generation: String) -> String? {
        let directory = location.path(of: generation)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return nil }
        var lines = ["generation \(generation)"]
        for name in names.sorted() where IndexLocation.isTableFile(name) {
            var status = stat()
            guard stat(directory + "/" + name, &status) == 0 else { return nil }
            lines.append(
                "\(name) \(status.st_size) \(status.st_ino) \(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Records `generation`'s files as sound: a writer calls it after each commit, a check after it passes.
    /// Best effort: a record that cannot be written only costs a check later.
    func record(_ generation: String) {
        guard let signature = signature(of: generation) else { return }
        let temporary = location.checkStatePath + ".tmp"
        guard (try? IndexLocation.write(Data(signature.utf8), to: temporary)) != nil,
            rename(temporary, location.checkStatePath) == 0
        else {
            unlink(temporary)
            return
        }
    }

    /// Whether `generation`'s files are as last recorded.
    func isUnchanged(_ generation: String) -> Bool {
        guard let recorded = try? String(contentsOfFile: location.checkStatePath, encoding: .utf8) else { return false }
        return recorded == signature(of: generation)
    }

    /// What is wrong with `generation`, checking it only if its files changed since they were last recorded; nil
    /// when they did not, or when the check finds it sound (it is then recorded).
    func damageIfChanged(_ generation: String) -> String? {
        if isUnchanged(generation) { return nil }
        return damage(generation)
    }

    /// What Xapian's full check finds wrong with `generation`, or nil (then the files are recorded as sound). A
    /// check that a concurrent commit may have misled (the files changed while it read them) is run again, up to
    /// three times.
    func damage(_ generation: String) -> String? {
        var found: String?
        for _ in 0..<3 {
            let before = signature(of: generation)
            found = SearchableIndex.damage(at: location.path(of: generation))
            if found == nil {
                record(generation)
                return nil
            }
            if signature(of: generation) == before { return found }
        }
        return found
    }
}

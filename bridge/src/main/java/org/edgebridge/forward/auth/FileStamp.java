package org.edgebridge.forward.auth;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

/**
 * What a stat of some files says, to tell cheaply whether any of them changed (written again, replaced by a rename,
 * or gone): modification time, size and file key of each. Two stamps are equal while the files are unchanged.
 */
record FileStamp(List<String> parts) {
    static FileStamp of(Path... files) {
        List<String> parts = new ArrayList<>();
        for (Path file : files) {
            try {
                BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
                parts.add(file + "|" + a.lastModifiedTime().toMillis() + "|" + a.size() + "|" + a.fileKey());
            } catch (IOException e) {
                parts.add(file + "|missing");
            }
        }
        return new FileStamp(List.copyOf(parts));
    }
}

package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/harkhq/hark/client"
)

// splitRemote reads FOLDER/NAME (a name alone is at the top level).
func splitRemote(s string) (folder, name string) {
	s = strings.Trim(s, "/")
	if i := strings.IndexByte(s, '/'); i >= 0 {
		return s[:i], s[i+1:]
	}
	return "", s
}

// storageEntry is one row of `hark storage ls --json`.
type storageEntry struct {
	Type     string `json:"type"` // "folder" or "file"
	Name     string `json:"name"`
	Folder   string `json:"folder"` // "" at the top level
	Path     string `json:"path"`   // what storage get and rm take
	Size     *int64 `json:"size,omitempty"`
	Modified string `json:"modified,omitempty"` // RFC 3339, UTC
}

func storageLs(e *cliEnv, args []string) error {
	f := e.flags("storage ls", "[FOLDER] [--json] [--bytes]", `Lists the folders and the top-level files of the
workspace, or the files of FOLDER: size, last change and name. --json prints an array of
{"type", "name", "folder", "path", "size", "modified"} objects.`)
	asJSON := f.Bool("json", false, "print JSON")
	bytes := f.Bool("bytes", false, "sizes in bytes")
	rest, err := f.parse(args)
	if err != nil {
		return err
	}
	if len(rest) > 1 {
		return f.usageError("give at most one FOLDER")
	}
	folder := ""
	if len(rest) == 1 {
		folder = strings.Trim(rest[0], "/")
	}
	p, err := e.platform()
	if err != nil {
		return err
	}
	st := p.Client.Storage
	var entries []storageEntry
	if folder == "" {
		folders, err := st.Folders(e.ctx)
		if err != nil {
			return err
		}
		for _, name := range folders {
			entries = append(entries, storageEntry{Type: "folder", Name: name, Path: name + "/"})
		}
	}
	files, err := st.List(e.ctx, folder, client.ListOptions{})
	if err != nil {
		return noFolder(err, folder)
	}
	if len(files) == 0 && folder != "" {
		// A missing folder lists as empty: say which it is.
		if ok, err := st.FolderExists(e.ctx, folder); err != nil {
			return err
		} else if !ok {
			return missingFolder(folder)
		}
	}
	for _, fe := range files {
		size := fe.Size
		entries = append(entries, storageEntry{Type: "file", Name: fe.Name, Folder: folder, Path: path.Join(folder, fe.Name),
			Size: &size, Modified: time.UnixMilli(fe.LastModified).UTC().Format(time.RFC3339)})
	}
	empty := "the workspace has no files or folders yet (hark storage put FILE uploads one)"
	if folder != "" {
		empty = "no files in " + folder + "/"
	}
	return writeList(e.stdout, e.stderr, *asJSON, entries, empty, func(w io.Writer, it storageEntry) {
		if it.Type == "folder" {
			fmt.Fprintf(w, "-\t-\t%s\n", it.Path)
			return
		}
		when, _ := time.Parse(time.RFC3339, it.Modified)
		fmt.Fprintf(w, "%s\t%s\t%s\n", sizeText(*it.Size, *bytes), when.Local().Format("2006-01-02 15:04"), it.Name)
	})
}

func storagePut(e *cliEnv, args []string) error {
	f := e.flags("storage put", "LOCAL [FOLDER[/NAME]]", `Uploads the file LOCAL to the top level, to FOLDER, or
as FOLDER/NAME. An existing file of that name is replaced. Progress is shown when stderr is a
terminal.`)
	rest, err := f.parse(args)
	if err != nil {
		return err
	}
	if len(rest) < 1 || len(rest) > 2 {
		return f.usageError("give the LOCAL file and, optionally, where to put it")
	}
	local := rest[0]
	file, err := os.Open(local)
	if err != nil {
		return err
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil {
		return err
	}
	if info.IsDir() {
		return fmt.Errorf("%s is a directory; give a file", local)
	}
	folder, name := "", filepath.Base(local)
	if len(rest) == 2 {
		target := strings.Trim(rest[1], "/")
		if strings.Contains(target, "/") {
			folder, name = splitRemote(target)
		} else {
			folder = target
		}
	}
	p, err := e.platform()
	if err != nil {
		return err
	}
	progress, done := progressLine(e.stderr, "uploading", name)
	res, err := p.Client.Storage.Upload(e.ctx, folder, name, file, info.Size(), progress)
	done()
	if err != nil {
		return noFolder(err, folder)
	}
	fmt.Fprintf(e.stderr, "uploaded %s (%s)\n", path.Join(res.Folder, res.File), humanBytes(info.Size()))
	return nil
}

// noFolder says how to make the folder when err is the platform saying it
// is missing.
func noFolder(err error, folder string) error {
	if folder != "" && client.IsCode(err, "EntityNotFound") && strings.Contains(err.Error(), "folder") {
		return missingFolder(folder)
	}
	return err
}

func missingFolder(folder string) error {
	return fmt.Errorf("there is no folder %s/ in the workspace: hark storage mkdir %s creates it", folder, folder)
}

func storageGet(e *cliEnv, args []string) error {
	f := e.flags("storage get", "FOLDER/NAME [LOCAL|-] [--force]", `Downloads a file to LOCAL (a file or a directory;
default: NAME in the current directory), or to stdout with "-". An existing local file is kept
unless --force is given. Progress is shown when stderr is a terminal.`)
	force := f.Bool("force", false, "overwrite an existing local file")
	rest, err := f.parse(args)
	if err != nil {
		return err
	}
	if len(rest) < 1 || len(rest) > 2 {
		return f.usageError("give the remote FOLDER/NAME and, optionally, where to write it")
	}
	folder, name := splitRemote(rest[0])
	if name == "" {
		return f.usageError("%q names no file", rest[0])
	}
	toStdout := len(rest) == 2 && rest[1] == "-"
	local := filepath.Base(name)
	if len(rest) == 2 && !toStdout {
		local = rest[1]
		if info, err := os.Stat(local); err == nil && info.IsDir() {
			local = filepath.Join(local, filepath.Base(name))
		}
	}
	if !toStdout && !*force {
		if _, err := os.Lstat(local); err == nil {
			return fmt.Errorf("%s already exists: add --force to overwrite it, or give another LOCAL", local)
		}
	}
	p, err := e.platform()
	if err != nil {
		return err
	}
	st := p.Client.Storage
	if toStdout {
		progress, done := progressLine(e.stderr, "downloading", name)
		_, err := st.Download(e.ctx, folder, name, e.stdout, progress)
		done()
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(local), ".hark-download-*")
	if err != nil {
		return err
	}
	progress, done := progressLine(e.stderr, "downloading", name)
	n, err := st.Download(e.ctx, folder, name, tmp, progress)
	done()
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = place(tmp.Name(), local, *force)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	fmt.Fprintf(e.stderr, "downloaded %s (%s) to %s\n", rest[0], humanBytes(n), local)
	return nil
}

// place moves a finished download to local. Without force a hard link
// puts it there only if nothing is (a file that appeared meanwhile is
// kept); where links are not possible, a last check and a rename do.
func place(tmp, local string, force bool) error {
	if force {
		return os.Rename(tmp, local)
	}
	err := os.Link(tmp, local)
	if err == nil {
		return os.Remove(tmp)
	}
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s already exists: add --force to overwrite it, or give another LOCAL", local)
	}
	if _, serr := os.Lstat(local); serr == nil {
		return fmt.Errorf("%s already exists: add --force to overwrite it, or give another LOCAL", local)
	}
	return os.Rename(tmp, local)
}

// progressLine draws a transfer's progress on w, redrawn at most ten times
// a second, when w is a terminal; done clears the line.
func progressLine(w io.Writer, verb, name string) (progress client.Progress, done func()) {
	if !isTerminal(w) {
		return nil, func() {}
	}
	var mu sync.Mutex
	var last time.Time
	drawn := false
	progress = func(moved, total int64) {
		mu.Lock()
		defer mu.Unlock()
		if now := time.Now(); now.Sub(last) >= 100*time.Millisecond || moved == total {
			last, drawn = now, true
			if total > 0 {
				fmt.Fprintf(w, "\r\033[K%s %s  %3d%%  %s of %s", verb, name, moved*100/total, humanBytes(moved), humanBytes(total))
			} else {
				fmt.Fprintf(w, "\r\033[K%s %s  %s", verb, name, humanBytes(moved))
			}
		}
	}
	done = func() {
		mu.Lock()
		defer mu.Unlock()
		if drawn {
			fmt.Fprint(w, "\r\033[K")
		}
	}
	return progress, done
}

func storageRm(e *cliEnv, args []string) error {
	f := e.flags("storage rm", "FOLDER/NAME...", "Deletes files (a name alone is a top-level file).")
	rest, err := f.parse(args)
	if err != nil {
		return err
	}
	if len(rest) == 0 {
		return f.usageError("give the files to delete")
	}
	p, err := e.platform()
	if err != nil {
		return err
	}
	for _, r := range rest {
		folder, name := splitRemote(r)
		// The platform's delete succeeds for a file that is not there;
		// rm says so, as rm(1) does.
		if ok, err := p.Client.Storage.Exists(e.ctx, folder, name); err != nil {
			return noFolder(err, folder)
		} else if !ok {
			return fmt.Errorf("rm %s: there is no such file", strings.Trim(r, "/"))
		}
		if err := p.Client.Storage.Delete(e.ctx, folder, name); err != nil {
			return fmt.Errorf("rm %s: %w", r, err)
		}
		fmt.Fprintf(e.stderr, "deleted %s\n", strings.Trim(r, "/"))
	}
	return nil
}

func storageFolder(op string) func(e *cliEnv, args []string) error {
	about := "Creates a folder at the top level of the workspace (folders do not nest)."
	if op == "rmdir" {
		about = "Deletes an empty folder."
	}
	return func(e *cliEnv, args []string) error {
		f := e.flags("storage "+op, "FOLDER", about)
		rest, err := f.parse(args)
		if err != nil {
			return err
		}
		if len(rest) != 1 {
			return f.usageError("give one FOLDER")
		}
		p, err := e.platform()
		if err != nil {
			return err
		}
		folder := strings.Trim(rest[0], "/")
		if op == "rmdir" {
			if ok, err := p.Client.Storage.FolderExists(e.ctx, folder); err != nil {
				return err
			} else if !ok {
				return fmt.Errorf("there is no folder %s/ in the workspace", folder)
			}
		}
		if op == "mkdir" {
			err = p.Client.Storage.CreateFolder(e.ctx, folder)
		} else {
			err = p.Client.Storage.DeleteFolder(e.ctx, folder)
		}
		if err == nil {
			fmt.Fprintf(e.stderr, "%s %s/\n", map[string]string{"mkdir": "created", "rmdir": "deleted"}[op], folder)
		}
		return err
	}
}

func storageDu(e *cliEnv, args []string) error {
	f := e.flags("storage du", "[--bytes] [--json]", `Prints the total size of the workspace's files. --json prints
{"bytes": N}.`)
	asJSON := f.Bool("json", false, "print JSON")
	bytes := f.Bool("bytes", false, "the size in bytes")
	rest, err := f.parse(args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return f.usageError("takes no arguments")
	}
	p, err := e.platform()
	if err != nil {
		return err
	}
	n, err := p.Client.Storage.TotalSize(e.ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e.stdout, map[string]int64{"bytes": n})
	}
	fmt.Fprintln(e.stdout, sizeText(n, *bytes))
	return nil
}

func storageClear(e *cliEnv, args []string) error {
	f := e.flags("storage clear", "--yes", "Deletes every file and folder of the workspace. It asks for --yes.")
	yes := f.Bool("yes", false, "yes, delete everything")
	rest, err := f.parse(args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return f.usageError("takes no arguments")
	}
	if !*yes {
		return f.usageError("this deletes every file and folder of the workspace; add --yes to do it")
	}
	p, err := e.platform()
	if err != nil {
		return err
	}
	tok, err := p.Client.Storage.RequestClear(e.ctx)
	if err != nil {
		return err
	}
	res, err := p.Client.Storage.Clear(e.ctx, tok.Token)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "cleared %d files and %d folders\n", res.Files, res.Folders)
	return nil
}

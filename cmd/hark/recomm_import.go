package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/harkhq/hark/client"
)

// importFolder is the storage folder local files are uploaded to before they are imported.
const importFolder = "imports"

// importOutcome is the summary of one import: the true counts (the server's added and
// notAddedCount), the not-added entries by reason, and the first few of them.
type importOutcome struct {
	Kind      string                 `json:"kind"`
	TableID   string                 `json:"tableId,omitempty"`
	Source    string                 `json:"source"`
	RequestID string                 `json:"requestId"`
	Status    string                 `json:"status"`
	Added     int                    `json:"added"`
	NotAdded  int                    `json:"notAdded"`
	Reasons   map[string]int         `json:"notAddedByReason,omitempty"`
	First     []client.NotAddedEntry `json:"firstErrors,omitempty"`
	Message   string                 `json:"message,omitempty"`
}

// firstErrors is how many not-added entries a summary shows.
const firstErrors = 5

func (o importOutcome) print(w io.Writer) {
	what := o.Kind
	if o.TableID != "" && o.Kind != "users" {
		what += " of " + o.TableID
	}
	fmt.Fprintf(w, "%s from %s: %s", what, o.Source, o.Status)
	if client.StatusEnded(o.Status) && o.Status != client.StatusError {
		fmt.Fprintf(w, ", %d added, %d not added", o.Added, o.NotAdded)
		if len(o.Reasons) > 0 {
			codes := make([]string, 0, len(o.Reasons))
			for c := range o.Reasons {
				codes = append(codes, c)
			}
			sort.Strings(codes)
			var parts []string
			for _, c := range codes {
				parts = append(parts, fmt.Sprintf("%s %d", c, o.Reasons[c]))
			}
			fmt.Fprintf(w, " (%s)", strings.Join(parts, ", "))
		}
	}
	fmt.Fprintln(w, suffix(o.Message))
	for _, n := range o.First {
		fmt.Fprintf(w, "  %s: %s %s\n", n.ErrorID, n.Code, n.Message)
	}
	if o.NotAdded > len(o.First) && len(o.First) > 0 {
		fmt.Fprintf(w, "  ... and %d more\n", o.NotAdded-len(o.First))
	}
}

// startImport queues an import of a URL (http(s) or storage://).
func (e *recommEnv) startImport(kind client.ImportKind, table, url, format string) (importOutcome, error) {
	req := client.ImportRequest{URL: url, Format: format}
	var job client.ImportJob
	var err error
	switch kind {
	case client.ImportItems:
		job, err = e.r.ImportItems(e.ctx, table, req)
	case client.ImportUsers:
		job, err = e.r.ImportUsers(e.ctx, req)
	default:
		job, err = e.r.ImportInteractions(e.ctx, table, req)
	}
	return importOutcome{Kind: kind.String(), TableID: table, Source: url, RequestID: job.RequestID, Status: job.Status}, err
}

// waitImport follows an import to its end and fills the summary.
func (e *recommEnv) waitImport(kind client.ImportKind, o *importOutcome) error {
	job, err := e.r.WaitImport(e.ctx, kind, o.TableID, o.RequestID, 100*time.Millisecond, nil)
	if err != nil {
		return err
	}
	o.Status, o.Added, o.NotAdded, o.Message = job.Status, job.Added, job.NotAddedCount, job.Message
	list := job.NotAdded()
	if o.NotAdded < len(list) {
		o.NotAdded = len(list)
	}
	for _, n := range list {
		if o.Reasons == nil {
			o.Reasons = map[string]int{}
		}
		o.Reasons[n.Code]++
	}
	o.First = list[:min(firstErrors, len(list))]
	return nil
}

func cmdRecommImport(e *recommEnv, args []string) error {
	sf := newSubFlags(e, "import")
	table := sf.String("table", "", "table id (not needed for users)")
	kindName := sf.String("kind", "items", "what the file holds: items, users or interactions")
	url := sf.String("url", "", "the source, as an argument would give it")
	mapping := sf.String("map", "", "rename CSV columns of a local file: src=dst,...")
	format := sf.String("format", "", "csv or json (default: from the file name)")
	wait := sf.Bool("wait", false, "wait until the import ends and print its summary")
	pos, err := sf.parseRange(e, args, 0, 1)
	if err != nil {
		return finish(err)
	}
	src := *url
	if len(pos) == 1 {
		if src != "" {
			return sf.usageError(e, "give the source once: as an argument or with --url")
		}
		src = pos[0]
	}
	if src == "" {
		return sf.usageError(e, "give a FILE or URL to import")
	}
	kind, err := importKind(*kindName)
	if err != nil {
		return sf.usageError(e, "%v", err)
	}
	if kind != client.ImportUsers && *table == "" {
		return sf.usageError(e, "--table is required for %s", kind)
	}
	if *format == "" {
		*format = client.FormatCSV
		if strings.HasSuffix(strings.ToLower(src), ".json") {
			*format = client.FormatJSON
		}
	}
	renames, err := parseMap(*mapping)
	if err != nil {
		return sf.usageError(e, "%v", err)
	}
	var columns []string // the attributes a file of this kind may carry, nil when not checked
	switch kind {
	case client.ImportItems:
		if _, err := e.table(*table); err != nil {
			return err
		}
		attrs, err := e.r.Attributes(e.ctx, *table)
		if err != nil {
			return err
		}
		columns = append([]string{"itemId"}, attrNames(attrs)...)
	case client.ImportUsers:
		attrs, err := e.r.UserAttributes(e.ctx)
		if err != nil {
			return err
		}
		columns = append([]string{"userId"}, attrNames(attrs)...)
	default:
		if _, err := e.table(*table); err != nil {
			return err
		}
		columns = []string{"userId", "itemId", "timestamp", "interactionName", "value"}
	}
	if strings.Contains(src, "://") {
		if len(renames) > 0 {
			return sf.usageError(e, "--map applies to local files")
		}
	} else {
		if src, err = e.uploadFile(src, *format, renames, columns, kind, !*sf.json); err != nil {
			return err
		}
	}
	o, err := e.startImport(kind, *table, src, *format)
	if err != nil {
		return err
	}
	if *wait {
		if err := e.waitImport(kind, &o); err != nil {
			return err
		}
	}
	if *sf.json {
		if err := recommJSON(e.stdout, o); err != nil {
			return err
		}
	} else {
		o.print(e.stdout)
	}
	return importExit(o)
}

// importExit is an error when an ended import failed or added nothing.
func importExit(outcomes ...importOutcome) error {
	added, ended := 0, true
	for _, o := range outcomes {
		if o.Status == client.StatusError {
			return fmt.Errorf("the %s import failed%s", o.Kind, suffix(o.Message))
		}
		ended = ended && client.StatusEnded(o.Status)
		added += o.Added
	}
	if ended && added == 0 {
		return errors.New("nothing was added")
	}
	return nil
}

func attrNames(attrs []client.Attribute) []string {
	out := make([]string, len(attrs))
	for i, a := range attrs {
		out[i] = a.AttributeID
	}
	return out
}

// parseMap reads src=dst,... column renames.
func parseMap(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, pair := range splitList(s) {
		src, dst, ok := strings.Cut(pair, "=")
		if !ok || strings.TrimSpace(src) == "" || strings.TrimSpace(dst) == "" {
			return nil, fmt.Errorf("--map %q: write src=dst", pair)
		}
		out[strings.TrimSpace(src)] = strings.TrimSpace(dst)
	}
	return out, nil
}

// uploadFile streams a local file to storage (CSV headers renamed and checked on the way) and
// returns its storage:// address. Memory stays flat whatever the file size.
func (e *recommEnv) uploadFile(path, format string, renames map[string]string, columns []string, kind client.ImportKind, verbose bool) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return "", err
	}
	if info.IsDir() {
		return "", fmt.Errorf("%s is a directory (hark recomm import movielens DIR loads a MovieLens directory)", path)
	}
	var body io.Reader = f
	size := info.Size()
	if format == client.FormatCSV {
		var grew int64
		if body, grew, err = rewriteHeader(f, path, renames, columns, kind); err != nil {
			return "", err
		}
		size += grew
	} else if len(renames) > 0 {
		return "", errors.New("--map applies to CSV files")
	}
	name := filepath.Base(path)
	if err := e.upload(name, body, size, verbose); err != nil {
		return "", err
	}
	return "storage://" + importFolder + "/" + name, nil
}

// upload streams r to the import folder, showing progress on stderr when verbose.
func (e *recommEnv) upload(name string, r io.Reader, size int64, verbose bool) error {
	if err := e.storage.CreateFolder(e.ctx, importFolder); err != nil {
		return err
	}
	var last time.Time
	var sent int64
	show := func(done, total int64) {
		if total > 0 {
			fmt.Fprintf(e.stderr, "\rupload %s %s %3d%%", name, bar(done, total), done*100/total)
		} else {
			fmt.Fprintf(e.stderr, "\rupload %s %.1f MB", name, float64(done)/1e6)
		}
	}
	progress := func(done, total int64) {
		sent = done
		if verbose && time.Since(last) >= 200*time.Millisecond {
			last = time.Now()
			show(done, total)
		}
	}
	_, err := e.storage.Upload(e.ctx, importFolder, name, r, size, progress)
	if verbose {
		show(sent, size)
		fmt.Fprintln(e.stderr)
	}
	if err != nil {
		return fmt.Errorf("upload %s: %w", name, err)
	}
	return nil
}

func bar(done, total int64) string {
	const width = 20
	n := int(min(done, total) * width / total)
	return "[" + strings.Repeat("#", n) + strings.Repeat(".", width-n) + "]"
}

// rewriteHeader reads a CSV file's header (without its byte-order mark), applies the renames,
// checks the columns against what the kind of file may carry, and returns the file with the new
// header and how many bytes longer it is; the rest streams through unchanged.
func rewriteHeader(r io.Reader, path string, renames map[string]string, columns []string, kind client.ImportKind) (io.Reader, int64, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	line, err := br.ReadString('\n')
	if err != nil && err != io.EOF {
		return nil, 0, fmt.Errorf("read %s: %w", path, err)
	}
	original := len(line)
	line = strings.TrimPrefix(line, "\ufeff")
	crlf := strings.HasSuffix(line, "\r\n")
	header, err := csv.NewReader(strings.NewReader(line)).Read()
	if err != nil {
		return nil, 0, fmt.Errorf("%s: the first line is not a CSV header: %v", path, err)
	}
	for src := range renames {
		if !slices.Contains(header, src) {
			return nil, 0, fmt.Errorf("--map: %s has no column %q (its columns: %s)", path, src, strings.Join(header, ", "))
		}
	}
	for i, h := range header {
		if dst, ok := renames[h]; ok {
			header[i] = dst
		}
	}
	if columns != nil {
		for _, h := range header {
			if !slices.Contains(columns, h) {
				return nil, 0, fmt.Errorf("%s: column %q is not %s (they are: %s); rename columns with --map src=dst", path, h, columnRole(kind), strings.Join(columns, ", "))
			}
		}
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.UseCRLF = crlf
	w.Write(header)
	w.Flush()
	return io.MultiReader(bytes.NewReader(b.Bytes()), br), int64(b.Len() - original), nil
}

func columnRole(kind client.ImportKind) string {
	switch kind {
	case client.ImportInteractions:
		return "a column of an interactions file"
	case client.ImportUsers:
		return "userId or a user attribute"
	}
	return "itemId or an attribute of the table"
}

func importKind(s string) (client.ImportKind, error) {
	switch strings.ToLower(s) {
	case "items":
		return client.ImportItems, nil
	case "users":
		return client.ImportUsers, nil
	case "interactions":
		return client.ImportInteractions, nil
	}
	return 0, fmt.Errorf("--kind %q: use items, users or interactions", s)
}

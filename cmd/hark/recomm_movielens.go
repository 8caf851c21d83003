package main

import (
	"encoding/csv"
	"fmt"
	"time"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/client/recommimport"
)

// movieLensSummary is the --json answer of import movielens.
type movieLensSummary struct {
	TableID  string           `json:"tableId"`
	Created  bool             `json:"created"`
	Imports  []importOutcome  `json:"imports"`
	Training *client.TrainJob `json:"training,omitempty"`
	Seconds  float64          `json:"seconds"`
}

func cmdRecommImportMovieLens(e *recommEnv, args []string) error {
	sf := newSubFlags(e, "import movielens")
	table := sf.String("table", "", "the table to load (created when missing)")
	train := sf.String("train", client.EngineHybrid, `the engine to train once loaded ("" for none)`)
	wait := sf.Bool("wait", false, "wait until the imports and the training end")
	pos, err := sf.parse(e, args, 1)
	if err != nil {
		return finish(err)
	}
	if *table == "" {
		return sf.usageError(e, "--table is required")
	}
	start := time.Now()
	dir := pos[0]
	ml, err := recommimport.Open(dir)
	if err != nil {
		return err
	}
	verbose := !*sf.json
	sum := movieLensSummary{TableID: *table}
	if sum.Created, err = recommimport.EnsureTable(e.ctx, e.r, *table, ml.HasTags()); err != nil {
		return err
	}
	if verbose && sum.Created {
		fmt.Fprintf(e.stdout, "table %s created with attributes title, year, genres%s and interaction %s\n", *table,
			map[bool]string{true: ", tags", false: ""}[ml.HasTags()], recommimport.Rating)
	}
	// jobs of a workspace start in the order they were accepted: users and items before the ratings
	// that name them, the training last
	steps := ml.Steps()
	for _, s := range steps {
		if err := e.uploadGenerated(s.Name, s.Fill, verbose); err != nil {
			return err
		}
		o, err := e.startImport(s.Kind, *table, "storage://"+importFolder+"/"+s.Name, client.FormatCSV)
		if err != nil {
			return err
		}
		sum.Imports = append(sum.Imports, o)
	}
	var trainJob client.TrainJob
	if *train != "" {
		if trainJob, err = e.r.Train(e.ctx, *table, client.TrainRequest{Engine: *train}); err != nil {
			return err
		}
		sum.Training = &trainJob
	}
	if *wait {
		for i := range sum.Imports {
			o := &sum.Imports[i]
			if err := e.waitImport(steps[i].Kind, o); err != nil {
				return err
			}
			if verbose {
				o.print(e.stdout)
			}
		}
		if *train != "" {
			if trainJob, err = e.r.WaitTraining(e.ctx, *table, trainJob.RequestID, 100*time.Millisecond, nil); err != nil {
				return err
			}
			sum.Training = &trainJob
			if verbose {
				fmt.Fprintf(e.stdout, "training %s: %s%s\n", *train, trainJob.Status, suffix(trainJob.Message))
				if line := tuningLine(trainJob); line != "" {
					fmt.Fprintf(e.stdout, "  %s\n", line)
				}
			}
		}
	} else if verbose {
		for _, o := range sum.Imports {
			fmt.Fprintf(e.stdout, "%s import %s %s\n", o.Kind, o.RequestID, o.Status)
		}
		if *train != "" {
			fmt.Fprintf(e.stdout, "training %s %s %s\n", *train, trainJob.RequestID, trainJob.Status)
		}
	}
	sum.Seconds = time.Since(start).Seconds()
	if *sf.json {
		if err := recommJSON(e.stdout, sum); err != nil {
			return err
		}
	} else if *wait {
		fmt.Fprintf(e.stdout, "done in %.1fs; try: hark recomm recommend --table %s --user %s\n", sum.Seconds, *table, ml.FirstUser())
	}
	// users that exist already (a second table from the same data) are not a failure
	if err := importExit(sum.Imports[1:]...); err != nil {
		return err
	}
	if *wait && *train != "" && trainJob.Status != client.StatusCompleted && trainJob.Status != client.StatusCompletedWithErrors {
		return fmt.Errorf("training ended %s%s", trainJob.Status, suffix(trainJob.Message))
	}
	return nil
}

// uploadGenerated streams a CSV written by fill to the import folder: nothing is held whole in
// memory.
func (e *recommEnv) uploadGenerated(name string, fill func(w *csv.Writer) error, verbose bool) error {
	r := recommimport.Generate(fill)
	defer r.Close()
	return e.upload(name, r, -1, verbose)
}

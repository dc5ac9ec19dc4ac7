// EngineWorker::scoreVcf: Score Variants on the engine thread. The same scorer as carbon-cli vep
// (the variant-effect run's VepScorer, so a row here is the row the command line writes for the same record and
// settings), against the project's sequences as the genome; the rows go to a vep TSV that the
// project store then keeps as a run.
#include <QFile>

#include "carbon/model.h"
#include "carbon/runs/vep_run.h"
#include "carbon/storage/vcf.h"
#include "engine_worker.h"

namespace carbon::ui {

void EngineWorker::scoreVcf(quint64 requestId, const VepRunRequest& request) {
    if (!model_) return emit analysisFailed(requestId, tr("No model is loaded: open a model folder first."));
    if (isAnalysisCancelled(requestId, false)) return emit analysisCancelled(requestId);
    try {
        std::vector<std::pair<std::string, std::string>> named;
        for (qsizetype i = 0; i < request.sequenceNames.size(); ++i)
            named.emplace_back(request.sequenceNames[i].toStdString(), request.sequenceBases[i].toStdString());
        const storage::SequenceSetGenome genome("project " + request.projectPath.toStdString(), std::move(named));

        runs::VepSettings s;
        s.model = model_->checkpoint().dir().string();
        s.weights = model_->weights();
        s.reference = "project:" + request.projectPath.toStdString();
        s.vcf = request.vcfPath.toStdString();
        s.options.window_bp = size_t(request.windowBp);
        s.options.reverse_complement = request.reverseComplement;

        VepRunDone done;
        done.request = request;
        done.request.sequenceBases.clear();
        done.modelDir = QString::fromStdString(s.model);
        done.backend = QString::fromStdString(model_->backend().describe());
        {  // a first pass for the progress: the records, read without scoring (htslib, fast)
            storage::VcfReader count(s.vcf, {});
            storage::VcfRecord rec;
            while (count.next(rec)) {
                ++done.recordsTotal;
                if (done.recordsTotal % 4096 == 0 && isAnalysisCancelled(requestId, false)) return emit analysisCancelled(requestId);
            }
        }
        emit analysisProgress(requestId, 0, done.recordsTotal);

        QFile out(request.tsvPath);
        if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate))
            throw Error(request.tsvPath.toStdString() + ": cannot write: " + out.errorString().toStdString());
        const std::string header = runs::vep_header(s);
        out.write(header.data(), qint64(header.size()));
        runs::VepScorer scorer(s, *model_, genome);
        storage::VcfReader vcf(s.vcf, {});
        runs::VepSiteReader sites(vcf);
        std::vector<storage::VcfRecord> site;
        const ScoreProgress keepGoing = [this, requestId](size_t, size_t) { return !isAnalysisCancelled(requestId, false); };
        while (sites.next(site)) {
            if (isAnalysisCancelled(requestId, false)) {
                done.cancelled = true;
                break;
            }
            std::string text;
            const std::vector<storage::VepRow> rows = scorer.score(site, keepGoing);
            if (scorer.cancelled()) {  // this site's rows are incomplete: the run ends before it
                done.cancelled = true;
                break;
            }
            for (const storage::VepRow& r : rows) text += storage::format_vep_row(r);
            if (out.write(text.data(), qint64(text.size())) != qint64(text.size()))
                throw Error(request.tsvPath.toStdString() + ": cannot write: " + out.errorString().toStdString());
            done.rows += qint64(rows.size());
            done.records += qint64(site.size());
            emit analysisProgress(requestId, done.records, done.recordsTotal);
        }
        if (!out.flush()) throw Error(request.tsvPath.toStdString() + ": cannot write: " + out.errorString().toStdString());
        out.close();
        emit vcfScored(requestId, done);
    } catch (const std::exception& e) {
        emit analysisFailed(requestId, QString::fromUtf8(e.what()));
    }
}

}  // namespace carbon::ui
